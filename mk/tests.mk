# The unit and packet tests: build/test_*, each run by tests/run.sh.
#   unit     test_codel test_units test_vqueue test_fair, test_mapread
#            (loader/mapread.c on real maps), test_qdisc (issue
#            14: which qdisc trees real-queue and observe mode take, judged
#            on trees built in the test), test_hist (issue 5)
#   packet   the programs through BPF_PROG_TEST_RUN: test_pkt, test_rate,
#            test_ackecho (the echo of a signal on the ACKs),
#            and issue 9's packet corpus (test_corpus) and property test
#            (test_property)
UNIT_TESTS += $(OUTPUT)/test_codel $(OUTPUT)/test_units $(OUTPUT)/test_pkt \
	      $(OUTPUT)/test_vqueue $(OUTPUT)/test_rate $(OUTPUT)/test_fair \
	      $(OUTPUT)/test_qdisc $(OUTPUT)/test_hist $(OUTPUT)/test_mapread \
	      $(OUTPUT)/test_corpus $(OUTPUT)/test_property $(OUTPUT)/test_ackecho

$(OUTPUT)/test_codel: tests/unit/test_codel.c | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) -lm $(LDLIBS) -o $@

# unit tests of a header alone
$(OUTPUT)/test_fair $(OUTPUT)/test_vqueue: $(OUTPUT)/%: tests/unit/%.c | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

# test_units, test_qdisc and test_hist link the loader's own objects
$(OUTPUT)/test_units: tests/unit/test_units.c $(OUTPUT)/loader/units.o | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

$(OUTPUT)/test_qdisc: tests/unit/test_qdisc.c $(OUTPUT)/loader/qdisc.o | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) -Itests/lib $(LDLIBS) -o $@

$(OUTPUT)/test_hist: tests/unit/test_hist.c $(OUTPUT)/loader/prom.o \
		     $(OUTPUT)/loader/flowkey.o | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

$(OUTPUT)/test_mapread: tests/unit/test_mapread.c $(OUTPUT)/loader/mapread.o | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) -Itests/lib $(LIBBPF) $(LDLIBS) -o $@

# the packet tests include the skeletons
PKT_TESTS := $(addprefix $(OUTPUT)/,test_pkt test_rate test_corpus test_property \
	     test_ackecho)
$(PKT_TESTS): $(OUTPUT)/%: tests/prog/%.c | $(OUTPUT) $(SKELS)
	$(call msg,TEST,$@)
	$(Q)$(PROG.c) $(LIBBPF) $(LDLIBS) -o $@
