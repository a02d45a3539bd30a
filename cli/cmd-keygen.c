/* iofleet keygen: CURVE key pairs for a coordinator, agents and CLI users. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli-options.h"
#include "keys.h"
#include "util.h"

int cmd_keygen(int argc, char **argv)
{
        const char *dir = ".";
        bool force = false;
        const cli_command_t *cmd = cli_command_find("keygen");
        const char *name[256];
        cli_args_t args;
        cli_arg_t arg;
        int names = 0, r;
        char err[1024];

        cli_args_init(&args, argc, argv);
        while ((r = cli_args_next(&args, cmd, &arg, err, sizeof(err))) > 0) {
                if (arg.help) {
                        cli_usage(cmd, stdout);
                        return 0;
                } else if (!arg.opt && names < (int)ELEMENTSOF(name))
                        name[names++] = arg.value;
                else if (!arg.opt) {
                        r = errorf(err, sizeof(err), -E2BIG, "at most %zu names at once",
                                   ELEMENTSOF(name));
                        break;
                } else if (streq(arg.opt->name, "dir"))
                        dir = arg.value;
                else if (streq(arg.opt->name, "force"))
                        force = true;
        }
        if (r < 0) {
                fprintf(stderr, "iofleet keygen: %s\n", err);
                return 2;
        }
        for (int i = 0; i < names; i++) {
                keypair_t kp;
                if ((r = keys_generate(&kp)) < 0) {
                        fprintf(stderr, "iofleet keygen: %s\n",
                                r == -EOPNOTSUPP ? "this libzmq has no CURVE support"
                                                 : strerror(-r));
                        return 1;
                }
                if (keys_write(dir, name[i], &kp, force, err, sizeof(err)) < 0) {
                        fprintf(stderr, "iofleet keygen: %s\n", err);
                        return 1;
                }
                printf("%s/%s.key %s/%s.pub  public key %s\n", dir, name[i], dir, name[i],
                       kp.public_z85);
        }
        if (!names) {
                fprintf(stderr, "iofleet keygen: name at least one key pair (iofleet keygen "
                                "NAME ...; iofleet help keygen)\n");
                return 2;
        }
        return 0;
}
