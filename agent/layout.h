/* Laying out job files as fio does: create them, and fill missing or short files that will be read.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes path at least size bytes long. For a file that will be read (fill), the missing part is
 * written with non-repeating data; otherwise space is only reserved. A file already long enough
 * is reused untouched. err gets one line. */
int layout_file(const char *path, uint64_t size, bool fill, char *err, size_t errlen);
