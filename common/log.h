/* Logging to the journal under systemd and to stderr otherwise, with printf checking. */
#pragma once

#include <syslog.h>
#include "util.h"

/* Sets the identifier shown with each line and the highest priority logged (LOG_DEBUG..LOG_ERR). */
void log_setup(const char *ident, int max_priority);
/* Parses "debug", "info", "notice", "warning", "error"; -EINVAL otherwise. */
int log_level_from_string(const char *s);
int log_get_max_priority(void);
/* Extra journal field attached to every following message, e.g. log_set_field("AGENT_ID", id);
 * up to four fields; a NULL or empty value removes the field. */
void log_set_field(const char *key, const char *value);

/* Logs one line; returns -abs(error) so callers can `return log_error_errno(r, ...)`. */
int log_internal(int priority, int error, const char *file, int line, const char *fmt, ...)
    _printf_(5, 6);

#define log_full_errno(prio, err, ...) log_internal(prio, err, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)
