#!/usr/bin/env bash
# Installs tcpdump and tshark (with editcap, from wireshark-common) from Debian when missing:
# the capture tests record loopback traffic with tcpdump and read FrameCapture's pcapng with
# tshark. Non-interactive: wireshark-common's question (let non-root users capture through a
# setuid dumpcap?) is answered no. Capturing needs CAP_NET_RAW: the tests and CI run as root.
set -euo pipefail
command -v tcpdump >/dev/null && command -v tshark >/dev/null && command -v editcap >/dev/null && exit 0
echo "installing tcpdump and tshark"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
$sudo apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tcpdump tshark >/dev/null
