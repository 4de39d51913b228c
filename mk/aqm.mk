# Roots that already are an AQM (issue 14): which qdisc trees real-queue
# and observe mode take, judged on trees built in the test, since this
# kernel has none of the AQM qdiscs (tests/e2e/aqm_root.sh runs the real
# ones in the 6.1 VM).
UNIT_TESTS += $(OUTPUT)/test_qdisc

$(OUTPUT)/test_qdisc: tests/unit/test_qdisc.c loader/qdisc.c loader/qdisc.h \
		      $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/lib tests/unit/test_qdisc.c loader/qdisc.c -o $@
