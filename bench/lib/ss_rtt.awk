# `ss -Htin` -> "DIR SRTT_MS" for each connection that has moved bulk data
# (iperf3's control connection shares the port but not the bytes; its srtt
# is stale).  DIR comes from -v dir=.
/^[A-Z0-9]/ { next }
{
	rtt = ""; moved = 0
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^rtt:/) { split(substr($i, 5), r, "/"); rtt = r[1] }
		if ($i ~ /^bytes_acked:/) {
			split($i, b, ":"); if (b[2] + 0 > 100000) moved = 1
		}
	}
	if (rtt != "" && moved) print dir, rtt
}
