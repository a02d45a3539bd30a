/* iofleet keygen: CURVE key pairs for a coordinator, agents and CLI users. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "keys.h"
#include "util.h"

static void usage(FILE *f)
{
        fprintf(f,
                "Usage: iofleet keygen [--dir=DIR] [--force] NAME...\n\n"
                "Writes DIR/NAME.key (the pair; keep it secret, mode 0600) and DIR/NAME.pub\n"
                "(the public key) for each NAME. Copy an agent's .pub into the coordinator's\n"
                "agent_keys_dir; copy the coordinator's .pub to every agent (coordinator_key).\n");
}

int cmd_keygen(int argc, char **argv)
{
        const char *dir = ".";
        bool force = false;
        int names = 0;
        char err[1024];

        for (int i = 1; i < argc; i++) {
                if (strncmp(argv[i], "--dir=", 6) == 0)
                        dir = argv[i] + 6;
                else if (streq(argv[i], "--force"))
                        force = true;
                else if (streq(argv[i], "--help")) {
                        usage(stdout);
                        return 0;
                } else if (argv[i][0] == '-') {
                        fprintf(
                            stderr,
                            "iofleet keygen: unknown option '%s' (allowed: --dir=DIR, --force)\n",
                            argv[i]);
                        return 2;
                }
        }
        for (int i = 1; i < argc; i++) {
                keypair_t kp;
                int r;
                if (argv[i][0] == '-')
                        continue;
                names++;
                if ((r = keys_generate(&kp)) < 0) {
                        fprintf(stderr, "iofleet keygen: %s\n",
                                r == -EOPNOTSUPP ? "this libzmq has no CURVE support"
                                                 : strerror(-r));
                        return 1;
                }
                if (keys_write(dir, argv[i], &kp, force, err, sizeof(err)) < 0) {
                        fprintf(stderr, "iofleet keygen: %s\n", err);
                        return 1;
                }
                printf("%s/%s.key %s/%s.pub  public key %s\n", dir, argv[i], dir, argv[i],
                       kp.public_z85);
        }
        if (!names) {
                usage(stderr);
                return 2;
        }
        return 0;
}
