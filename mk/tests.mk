# The unit and packet tests: build/test_*, each run by tests/run.sh.
#   unit     test_codel test_units test_vqueue test_fair, test_qdisc (issue
#            14: which qdisc trees real-queue and observe mode take, judged
#            on trees built in the test), test_hist (issue 5)
#   packet   the programs through BPF_PROG_TEST_RUN: test_pkt, test_rate,
#            and issue 9's packet corpus (test_corpus) and property test
#            (test_property)
UNIT_TESTS += $(OUTPUT)/test_codel $(OUTPUT)/test_units $(OUTPUT)/test_pkt \
	      $(OUTPUT)/test_vqueue $(OUTPUT)/test_rate $(OUTPUT)/test_fair \
	      $(OUTPUT)/test_qdisc $(OUTPUT)/test_hist \
	      $(OUTPUT)/test_corpus $(OUTPUT)/test_property

$(OUTPUT)/test_codel: tests/unit/test_codel.c include/codel.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -lm -o $@

$(OUTPUT)/test_fair: tests/unit/test_fair.c include/fair.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/test_vqueue: tests/unit/test_vqueue.c include/vqueue.h include/codel.h include/sojourn.h include/wire.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/test_units: tests/unit/test_units.c loader/units.c loader/units.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) tests/unit/test_units.c loader/units.c -o $@

$(OUTPUT)/test_qdisc: tests/unit/test_qdisc.c loader/qdisc.c loader/qdisc.h \
		      $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib tests/unit/test_qdisc.c loader/qdisc.c -o $@

$(OUTPUT)/test_hist: tests/unit/test_hist.c loader/prom.c loader/flowkey.c \
		     loader/prom.h loader/obs.h $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) tests/unit/test_hist.c loader/prom.c loader/flowkey.c -o $@

$(OUTPUT)/test_pkt: tests/prog/test_pkt.c $(OUTPUT)/sojourn.skel.h $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(OUTPUT)/test_rate: tests/prog/test_rate.c $(SKELS) $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

REL_PROG_DEPS := tests/prog/corpus.h tests/prog/runner.h $(SKELS) $(HEADERS)

$(OUTPUT)/test_corpus: tests/prog/test_corpus.c $(REL_PROG_DEPS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(OUTPUT)/test_property: tests/prog/test_property.c $(REL_PROG_DEPS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@
