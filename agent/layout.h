/* Laying out job files as fio does: create them, and fill missing or short files that will be read. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes path at least size bytes long. For a file that will be read (fill), the missing part is
 * written with data from seed that neither compresses nor deduplicates; otherwise space is only
 * reserved. A file already long enough is reused untouched. Only regular files are touched, and
 * never through a symbolic link. Returns -ECANCELED soon after *stop becomes non-zero; err gets
 * one line. */
int layout_file(const char *path, uint64_t size, bool fill, uint64_t seed, const int *stop,
                char *err, size_t errlen);
/* 0 when fd is a regular file; otherwise -EINVAL with err naming path and what it is. */
int layout_check_regular(int fd, const char *path, char *err, size_t errlen);
