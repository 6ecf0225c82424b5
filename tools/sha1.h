/*
 * tools/sha1.h -- SHA-1 (FIPS 180-4), for the .symcov "binary-hash"
 * field, which sancov fills with the uppercase SHA-1 of the binary file.
 */
#ifndef UKCOV_TOOLS_SHA1_H
#define UKCOV_TOOLS_SHA1_H

#include <stddef.h>
#include <stdint.h>

/* The SHA-1 of a file as 40 uppercase hex digits + NUL into out;
 * returns 0 or -errno. */
int sha1_file_hex_upper(const char *path, char out[41]);

#endif
