/* fio's names that iofleet knows but does not implement yet: job options and option values. */
#pragma once

/* fio job options (and command-line flags that act like them) that iofleet does not implement,
 * separated by single spaces. Naming one is -EOPNOTSUPP ("not supported yet"), never ignored. */
extern const char job_fio_unsupported_options[];

/* Values of rw=, ioengine= and verify= that fio accepts and iofleet does not yet (NULL-ended). */
extern const char *const job_fio_unsupported_rw[];
extern const char *const job_fio_unsupported_engines[];
extern const char *const job_fio_unsupported_verify[];
