#!/bin/sh
# Run once by Router.boot(), before any port driver loads: no IPv6 on the
# ports (no ND/MLD chatter in the frame counts), no reverse path filter
# (the generator's sources are not routed back).
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter
echo 0 >/proc/sys/net/ipv4/conf/default/rp_filter
