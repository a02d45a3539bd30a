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

/* Starts a RestartUnit or StopUnit job and waits for it to end (its object disappears then),
 * bounded at 90 s. */
static int unit_job(sd_bus *bus, const char *unit, bool restart, char *err, size_t errlen)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
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
        return 0;
}

/* systemctl reset-failed u: its failed state, if any, and its count of starts against the start
 * limit; its name is added to names when it was failed. */
static void reset_unit(sd_bus *bus, const char *u, char *names, size_t len, int *n)
{
        char *state = NULL, ignored[256];
        bool failed =
            unit_state(bus, u, &state, ignored, sizeof(ignored)) == 0 && streq(state, "failed");
        if (sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "ResetFailedUnit", NULL, NULL,
                               "s", u) >= 0 &&
            failed) {
                size_t used = strlen(names);
                snprintf(names + used, len - used, "%s%s", *n ? ", " : "", u);
                (*n)++;
        }
        free(state);
}

/* systemd refuses a unit started more than StartLimitBurst times in StartLimitIntervalSec (5 in
 * 10 s by default), and a sweep that configures nfs-server and puts it back point after point
 * restarts it (and nfs-mountd, part of it) that often: `systemctl reset-failed` on the unit and
 * on the units it requires clears their failed state and their counts. names: those that were
 * failed (comma-separated); how many. */
static int reset_failed(sd_bus *bus, const char *unit, char *names, size_t len)
{
        char **deps = NULL, *path = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int n = 0;
        names[0] = 0;
        if (sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "GetUnit", &e, &reply, "s",
                               unit) >= 0) {
                const char *p;
                if (sd_bus_message_read(reply, "o", &p) >= 0 && (path = strdup(p)))
                        (void)sd_bus_get_property_strv(bus, "org.freedesktop.systemd1", path,
                                                       "org.freedesktop.systemd1.Unit", "Requires",
                                                       NULL, &deps);
                sd_bus_message_unref(reply);
        }
        sd_bus_error_free(&e);
        reset_unit(bus, unit, names, len, &n);
        for (size_t i = 0; deps && deps[i]; i++) {
                reset_unit(bus, deps[i], names, len, &n);
                free(deps[i]);
        }
        free(deps);
        free(path);
        return n;
}

/* A job on unit, then the unit's state (malloc'd). */
static int unit_do_once(sd_bus *bus, const char *unit, bool restart, char **state, char *err,
                        size_t errlen)
{
        int r = unit_job(bus, unit, restart, err, errlen);
        return r < 0 ? r : unit_state(bus, unit, state, err, errlen);
}

int nfs_systemd_unit_do(const char *unit, const char *what, char *err, size_t errlen)
{
        _cleanup_(bus_unrefp) sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                return errorf(err, errlen, r, "%s: no system bus: %s", unit, strerror(-r));
        bool restart = streq(what, "restart"), ok;
        char *state = NULL, reset[512] = "";
        if ((r = unit_do_once(bus, unit, restart, &state, err, errlen)) < 0)
                return r;
        ok = restart ? streq(state, "active") : !streq(state, "active");
        if (!ok && restart) {
                /* A unit that does not start fails again: one more try costs a restart. */
                if (!reset_failed(bus, unit, reset, sizeof(reset)))
                        snprintf(reset, sizeof(reset), "none");
                log_notice("%s: restart left it %s (units failed: %s; systemd's start rate limit "
                           "or a dependency): reset-failed on it and the units it requires, "
                           "restarting once more",
                           unit, state, reset);
                free(state);
                state = NULL;
                if ((r = unit_do_once(bus, unit, restart, &state, err, errlen)) < 0)
                        return r;
                ok = streq(state, "active");
        }
        if (!ok)
                r = errorf(err, errlen, -EIO, "%s: %s left it %s%s", unit, what, state,
                           restart ? " (twice: also after systemctl reset-failed on it and the "
                                     "units it requires)"
                                   : "");
        free(state);
        return ok ? 0 : r;
}
