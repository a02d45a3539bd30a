/* libFuzzer target for plans: the bytes as a plan file, parsed and checked whole (every sweep
 * point), then each point built from it and turned into what travels. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char path[64], err[2048];
        plan_t p;
        int fd = memfd_create("plan", MFD_CLOEXEC);
        if (fd < 0)
                return 0;
        if (write(fd, data, size) != (ssize_t)size) {
                close(fd);
                return 0;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (plan_parse(path, &p, err, sizeof(err)) == 0) {
                size_t n = plan_points(&p);
                /* Every point of an accepted plan loads and packs. */
                for (size_t i = 0; i < n && i < 64; i++) {
                        plan_t q;
                        plan_wire_t w;
                        kvlist_t chosen = {0};
                        CHECK(plan_point(&p, i, &q, &chosen, err, sizeof(err)) == 0);
                        CHECK(chosen.n == p.n_params);
                        CHECK(plan_to_wire(&q, &w, err, sizeof(err)) == 0);
                        plan_wire_free(&w);
                        kv_clear(&chosen);
                        plan_free(&q);
                }
                plan_free(&p);
        } else
                CHECK(err[0] && !strchr(err, '\n'));
        close(fd);
        return 0;
}
