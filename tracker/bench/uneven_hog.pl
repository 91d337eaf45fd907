#!/usr/bin/env perl
# An emulation of the VM state in which one vCPU runs slower than the other for hours (seen on
# these 2-vCPU VMs at up to 70% apart; record-condition.sh's `uneven`): run under SCHED_FIFO and
# pinned to one CPU, it takes SHARE of every PERIOD seconds there, so whatever else runs on that
# CPU gets the rest (SHARE 0.4: the pinned Perl loop ~1.6x slower there than on the other).
# The real state is the host's doing and invisible to the guest's scheduler; this one is not
# (the kernel sees an RT task), and its slowdown is even in time, not in bursts: a stand-in,
# labelled as such wherever its figures appear.
#
#   chrt -f 1 taskset -c CPU perl tracker/bench/uneven_hog.pl PERIOD SHARE
use strict;
use warnings;
use Time::HiRes qw(time sleep);

my ($period, $share) = @ARGV;
unless (defined $share && $period > 0 && $share > 0 && $share < 0.95) {
  print STDERR "uneven_hog: expected PERIOD (seconds > 0) and SHARE (0 < SHARE < 0.95)\n";
  exit 2;
}
my $t = time;
while (1) {
  my $end = $t + $share * $period;
  1 while time() < $end;    # busy: the CPU's taken share
  $t += $period;
  my $now = time();
  if ($now >= $t) {         # overslept: start the next period now rather than catch up
    $t = $now if $now - $t > $period;
    next;
  }
  sleep($t - $now);
}
