#!/bin/sh
# The package's metadata for `make deb`: control (with the shared libraries
# dpkg-shlibdeps finds), conffiles, copyright and changelog.
# usage: deb-meta.sh STAGE VERSION ARCH
set -e
stage=$1 version=$2 arch=$3
root=$stage/root
doc=$root/usr/share/doc/sojourn

printf 'Source: sojourn\nMaintainer: sojourn developers <sojourn@example.org>\n\nPackage: sojourn\nArchitecture: any\n' \
	>"$stage/debian/control"
deps=$(cd "$stage" && dpkg-shlibdeps -O root/usr/sbin/sojourn root/usr/lib/cni/sojourn-cni 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CTL
Package: sojourn
Version: $version
Architecture: $arch
Maintainer: sojourn developers <sojourn@example.org>
Installed-Size: $size
Depends: $deps
Recommends: bash-completion
Suggests: containernetworking-plugins
Section: net
Priority: optional
Description: CoDel queue management for any interface, as eBPF programs
 sojourn puts the CoDel active queue manager on an interface's existing
 qdisc (real-queue mode) or on a virtual queue drained at a rate (rate
 mode, for container veths and ingress), as tc and XDP programs.
 .
 The package has the sojourn command, the sojourn daemon with its systemd
 unit (interfaces attached by rules as they come and go), and the
 sojourn-cni chained CNI plugin for per-pod rates.
CTL
echo /etc/sojourn/sojourn.conf >"$root/DEBIAN/conffiles"
cat >"$doc/copyright" <<'CPY'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: sojourn

Files: *
Copyright: 2025 sojourn developers
License: GPL-2 or BSD-2-clause
 On Debian systems the GPL-2 is in /usr/share/common-licenses/GPL-2.
 .
 Redistribution and use in source and binary forms, with or without
 modification, are permitted provided that the following conditions are met:
 1. Redistributions of source code must retain the above copyright notice,
    this list of conditions and the following disclaimer.
 2. Redistributions in binary form must reproduce the above copyright notice,
    this list of conditions and the following disclaimer in the documentation
    and/or other materials provided with the distribution.
 .
 THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
 AND ANY EXPRESS OR IMPLIED WARRANTIES ARE DISCLAIMED.
CPY
printf 'sojourn (%s) unstable; urgency=medium\n\n  * Package built from the sojourn repository.\n\n -- sojourn developers <sojourn@example.org>  %s\n' \
	"$version" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(date +%s)}")" |
	gzip -9n >"$doc/changelog.gz"
chmod 644 "$doc/copyright" "$doc/changelog.gz" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z |
	xargs -0 md5sum >DEBIAN/md5sums)
chmod 644 "$root/DEBIAN/md5sums"
