/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One output path for text and JSON, as iproute2's print_* helpers do:
 * each call names the JSON key and the text format together, so the two
 * forms cannot drift apart.
 */
#ifndef SJ_OUTPUT_H
#define SJ_OUTPUT_H

#include <stdbool.h>
#include <linux/types.h>

void out_init(bool json);
bool out_is_json(void);
/* key is ignored inside arrays and in text */
void out_open_array(const char *key);
void out_close_array(void);
void out_open_object(const char *key);
void out_close_object(void);
void out_u64(const char *key, const char *fmt, unsigned long long v);
void out_s64(const char *key, const char *fmt, long long v);
void out_str(const char *key, const char *fmt, const char *v);
/* text prints `word` only when v is true; JSON always has the bool */
void out_bool(const char *key, const char *word, bool v);
/* JSON: microseconds as a number (tc's convention); text: "5ms" */
void out_time(const char *key, const char *fmt, __u64 ns);
/* JSON: bytes per second as a number (tc -j's rate); text: "20Mbit" */
void out_rate(const char *key, const char *fmt, __u64 bytes_per_sec);
/* JSON: bytes as a number (tc -j's burst); text: "32Kb" */
void out_size(const char *key, const char *fmt, __u64 bytes);
void out_null(const char *key);
/* text only */
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prints the JSON document (text was printed as it came) */
void out_flush(void);

#endif
