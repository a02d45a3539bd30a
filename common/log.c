/* Logging to the journal under systemd and to stderr otherwise. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <time.h>

static const char *log_ident = "iofleet";
static int log_max = LOG_INFO;
static int log_journal = -1; /* -1 unknown, 0 stderr, 1 journal */
/* Extra journal fields (AGENT_ID, RUN_ID, ...) attached to every message. */
#define LOG_FIELDS 4
static struct {
        char key[32];
        char value[128];
} log_fields[LOG_FIELDS];

void log_setup(const char *ident, int max_priority)
{
        log_ident = ident;
        log_max = max_priority;
        log_journal = -1;
}

int log_get_max_priority(void)
{
        return log_max;
}

int log_level_from_string(const char *s)
{
        static const struct {
                const char *name;
                int prio;
        } levels[] = {{"debug", LOG_DEBUG},
                      {"info", LOG_INFO},
                      {"notice", LOG_NOTICE},
                      {"warning", LOG_WARNING},
                      {"error", LOG_ERR}};
        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                if (streq(s, levels[i].name))
                        return levels[i].prio;
        return -EINVAL;
}

void log_set_field(const char *key, const char *value)
{
        size_t i, free_slot = LOG_FIELDS;
        if (!key || !key[0])
                return;
        for (i = 0; i < LOG_FIELDS; i++) {
                if (streq(log_fields[i].key, key))
                        break;
                if (!log_fields[i].key[0] && free_slot == LOG_FIELDS)
                        free_slot = i;
        }
        if (i == LOG_FIELDS)
                i = free_slot;
        if (i == LOG_FIELDS)
                return;
        if (!value || !value[0]) {
                log_fields[i].key[0] = 0;
                return;
        }
        snprintf(log_fields[i].key, sizeof(log_fields[i].key), "%s", key);
        snprintf(log_fields[i].value, sizeof(log_fields[i].value), "%s", value);
}

/* stderr is connected to the journal when JOURNAL_STREAM names its device and inode. */
static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == dev && st.st_ino == ino;
}

int log_internal(int priority, int error, const char *file, int line, const char *fmt, ...)
{
        char msg[2048];
        va_list ap;
        int saved = errno;

        if (error < 0)
                error = -error;
        if (priority > log_max)
                return -error;
        errno = error; /* lets "%m" print the error */
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        errno = saved;

        if (log_journal < 0)
                log_journal = stderr_is_journal();
        if (log_journal) {
                char codefile[256], codeline[32], field[LOG_FIELDS][200];
                snprintf(codefile, sizeof(codefile), "CODE_FILE=%s", file);
                snprintf(codeline, sizeof(codeline), "CODE_LINE=%d", line);
                struct iovec iov[5 + LOG_FIELDS];
                char prio[16], ident[64], message[2100];
                snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
                snprintf(ident, sizeof(ident), "SYSLOG_IDENTIFIER=%s", log_ident);
                snprintf(message, sizeof(message), "MESSAGE=%s", msg);
                int n = 0;
                iov[n++] = (struct iovec){message, strlen(message)};
                iov[n++] = (struct iovec){prio, strlen(prio)};
                iov[n++] = (struct iovec){ident, strlen(ident)};
                iov[n++] = (struct iovec){codefile, strlen(codefile)};
                iov[n++] = (struct iovec){codeline, strlen(codeline)};
                for (size_t i = 0; i < LOG_FIELDS; i++) {
                        if (!log_fields[i].key[0])
                                continue;
                        snprintf(field[i], sizeof(field[i]), "%s=%s", log_fields[i].key,
                                 log_fields[i].value);
                        iov[n++] = (struct iovec){field[i], strlen(field[i])};
                }
                if (sd_journal_sendv(iov, n) >= 0)
                        return -error;
        }

        static const char *const names[] = {"emerg",   "alert",  "crit", "error",
                                            "warning", "notice", "info", "debug"};
        struct timespec ts;
        struct tm tm;
        char when[32];
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        strftime(when, sizeof(when), "%H:%M:%S", &tm);
        fprintf(stderr, "%s.%03ld %s[%d]: %s: %s\n", when, ts.tv_nsec / 1000000, log_ident,
                (int)getpid(), names[priority & 7], msg);
        return -error;
}
