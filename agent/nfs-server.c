/* The NFS server backends' registry and what they share: atomic file writes and systemd
 * units over sd-bus. */
#include "nfs-server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "util.h"

extern const nfs_backend_t nfs_backend_kernel;
extern const nfs_backend_t nfs_backend_ganesha;

static const nfs_backend_t *const backends[] = {&nfs_backend_kernel, &nfs_backend_ganesha};

const nfs_backend_t *nfs_backend_find(const char *name)
{
        for (size_t i = 0; name && i < ELEMENTSOF(backends); i++)
                if (streq(backends[i]->name, name))
                        return backends[i];
        return NULL;
}

int nfs_backends_register(const agent_config_t *cfg, restore_t *r)
{
        for (size_t i = 0; i < ELEMENTSOF(backends); i++) {
                int ret = restore_register_service(r, backends[i]->service(cfg));
                if (ret < 0)
                        return ret;
        }
        return 0;
}

int nfs_read_file(const char *path, char **data, size_t *len)
{
        return read_full_file(path, READ_FULL_REGULAR, NFS_FILE_MAX, data, len);
}

static void bus_unrefp(sd_bus **b)
{
        sd_bus_flush_close_unref(*b);
}

bool nfs_systemd_available(char *why, size_t whylen)
{
        _cleanup_(bus_unrefp) sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0) {
                snprintf(why, whylen, "no system bus (%s)", strerror(-r));
                return false;
        }
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *v = NULL;
        r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                       "org.freedesktop.systemd1.Manager", "Version", &e, &v);
        if (r < 0)
                snprintf(why, whylen, "systemd is not on the system bus (%s)",
                         e.message ? e.message : strerror(-r));
        sd_bus_error_free(&e);
        free(v);
        return r >= 0;
}

/* The unit's ActiveState ("inactive" when systemd does not know it); malloc'd. */
static int unit_state(sd_bus *bus, const char *unit, char **state, char *err, size_t errlen)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                   "org.freedesktop.systemd1.Manager", "GetUnit", &e, &reply, "s",
                                   unit);
        if (r < 0) {
                bool unknown = sd_bus_error_has_name(&e, "org.freedesktop.systemd1.NoSuchUnit");
                if (!unknown)
                        errorf(err, errlen, r, "%s: GetUnit: %s", unit,
                               e.message ? e.message : strerror(-r));
                sd_bus_error_free(&e);
                if (unknown) {
                        *state = strdup("inactive");
                        return *state ? 0 : -ENOMEM;
                }
                return r;
        }
        const char *path;
        r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", path,
                                               "org.freedesktop.systemd1.Unit", "ActiveState", &e,
                                               state);
        if (r < 0)
                errorf(err, errlen, r, "%s: ActiveState: %s", unit,
                       e.message ? e.message : strerror(-r));
        sd_bus_message_unref(reply);
        sd_bus_error_free(&e);
        return r < 0 ? r : 0;
}

int nfs_systemd_unit_active(const char *unit, bool *active, char *err, size_t errlen)
{
        _cleanup_(bus_unrefp) sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                return errorf(err, errlen, r, "%s: no system bus: %s", unit, strerror(-r));
        char *state = NULL;
        r = unit_state(bus, unit, &state, err, errlen);
        if (r < 0)
                return r;
        *active = streq(state, "active") || streq(state, "activating") ||
                  streq(state, "reloading");
        free(state);
        return 0;
}

int nfs_systemd_unit_do(const char *unit, const char *what, char *err, size_t errlen)
{
        _cleanup_(bus_unrefp) sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                return errorf(err, errlen, r, "%s: no system bus: %s", unit, strerror(-r));
        bool restart = streq(what, "restart");
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager",
                               restart ? "RestartUnit" : "StopUnit", &e, &reply, "ss", unit,
                               "replace");
        if (r < 0) {
                errorf(err, errlen, r, "%s: %s: %s", unit, restart ? "RestartUnit" : "StopUnit",
                       e.message ? e.message : strerror(-r));
                sd_bus_error_free(&e);
                return r;
        }
        const char *job_path = NULL;
        char *job = NULL;
        if (sd_bus_message_read(reply, "o", &job_path) >= 0)
                job = strdup(job_path);
        sd_bus_message_unref(reply);
        /* The job object disappears once the job finished; bounded at 90 s. */
        for (int i = 0; job && i < 900; i++) {
                char *st = NULL;
                int q = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", job,
                                                   "org.freedesktop.systemd1.Job", "State", NULL, &st);
                free(st);
                if (q < 0)
                        break;
                nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
        }
        free(job);
        char *state = NULL;
        r = unit_state(bus, unit, &state, err, errlen);
        if (r < 0)
                return r;
        bool ok = restart ? streq(state, "active") : !streq(state, "active");
        if (!ok)
                r = errorf(err, errlen, -EIO, "%s: %s left it %s", unit, what, state);
        free(state);
        return ok ? 0 : r;
}
