// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>
#include "output.h"
#include "units.h"

#define OUT_MAX_DEPTH 8

static bool json_mode;
static json_object *stack[OUT_MAX_DEPTH];
static int depth;

void out_init(bool json)
{
	json_mode = json;
	depth = 0;
}

bool out_is_json(void)
{
	return json_mode;
}

static void add(const char *key, json_object *v)
{
	json_object *top;

	if (depth == 0) {	/* a bare value becomes the document */
		stack[depth++] = v;
		return;
	}
	top = stack[depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else
		json_object_object_add(top, key, v);
}

static void push(const char *key, json_object *v)
{
	add(key, v);
	if (stack[depth - 1] != v && depth < OUT_MAX_DEPTH)
		stack[depth++] = v;
}

void out_open_array(const char *key)
{
	if (json_mode)
		push(key, json_object_new_array());
}

void out_open_object(const char *key)
{
	if (json_mode)
		push(key, json_object_new_object());
}

static void pop(void)
{
	if (json_mode && depth > 1)
		depth--;
}

void out_close_array(void)
{
	pop();
}

void out_close_object(void)
{
	pop();
}

void out_u64(const char *key, const char *fmt, unsigned long long v)
{
	if (json_mode)
		add(key, json_object_new_uint64(v));
	else
		printf(fmt, v);
}

void out_s64(const char *key, const char *fmt, long long v)
{
	if (json_mode)
		add(key, json_object_new_int64(v));
	else
		printf(fmt, v);
}

void out_str(const char *key, const char *fmt, const char *v)
{
	if (json_mode)
		add(key, json_object_new_string(v));
	else
		printf(fmt, v);
}

void out_bool(const char *key, const char *word, bool v)
{
	if (json_mode)
		add(key, json_object_new_boolean(v));
	else if (v)
		printf("%s", word);
}

void out_time(const char *key, const char *fmt, __u64 ns)
{
	char buf[32];

	if (json_mode)
		add(key, json_object_new_uint64(ns / 1000));
	else
		printf(fmt, sj_format_time(ns, buf, sizeof(buf)));
}

void out_rate(const char *key, const char *fmt, __u64 bytes_per_sec)
{
	char buf[SJ_UNITS_BUFSZ];

	if (json_mode)
		add(key, json_object_new_uint64(bytes_per_sec));
	else
		printf(fmt, sj_format_rate(bytes_per_sec * 8, buf, sizeof(buf)));
}

void out_size(const char *key, const char *fmt, __u64 bytes)
{
	char buf[SJ_UNITS_BUFSZ];

	if (json_mode)
		add(key, json_object_new_uint64(bytes));
	else
		printf(fmt, sj_format_size(bytes, buf, sizeof(buf)));
}

void out_null(const char *key)
{
	if (json_mode)
		add(key, NULL);
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void out_flush(void)
{
	if (json_mode && depth > 0) {
		/* pins are paths: "/sys/fs/bpf/...", not json-c's "\/sys\/..." */
		printf("%s\n", json_object_to_json_string_ext(stack[0],
				JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(stack[0]);
		depth = 0;
	}
	fflush(stdout);
}
