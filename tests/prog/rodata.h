/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Setting a program's load-time constant by name, before load: for the
 * packet tests, which load one object several times with different
 * constants (mode, link type) and must build against an object that does
 * not have them yet.
 */
#ifndef SJ_TEST_RODATA_H
#define SJ_TEST_RODATA_H

#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/* A const volatile of the object's .rodata, by name, before load: the
 * skeleton only has the fields the object had when it was built */
static inline int rn_set_rodata_u32(struct bpf_object *obj, const char *var,
				    __u32 val)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	struct bpf_map *map;
	size_t size;
	char *data = NULL;
	int id;

	bpf_object__for_each_map(map, obj) {
		const char *n = bpf_map__name(map);
		size_t l = strlen(n);

		if (bpf_map__is_internal(map) && l >= 7 &&
		    !strcmp(n + l - 7, ".rodata"))
			/* writable before load, whatever libbpf 1.1 says */
			data = (char *)(unsigned long)bpf_map__initial_value(map, &size);
	}
	id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (!data || id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *t = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, t->name_off), var))
			continue;
		if (vs->size != sizeof(val) || vs->offset + sizeof(val) > size)
			return -EINVAL;
		memcpy(data + vs->offset, &val, sizeof(val));
		return 0;
	}
	return -ENOENT;
}

#endif /* SJ_TEST_RODATA_H */
