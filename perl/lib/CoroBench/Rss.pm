package CoroBench::Rss;
# Peak resident memory of one variant, measured in a freshly exec'd perl (so nothing is
# inherited from another variant's pool, nor from the runner's own heap).
#
# Run as: perl -I perl/lib -MCoroBench::Rss -e 'exit CoroBench::Rss::main(@ARGV)' VARIANT TASKS
# Prints {"variant", "tasks", "completed", "baseline_kb", "hwm_kb"} on stdout.
#
# The figure is VmHWM (peak RSS) from /proc/self/status, read inside the process: unlike the
# seed's `ps -o rss` after the fact, it cannot miss a peak that was freed before the reading.
# baseline_kb is VmHWM once Coro and the patterns are loaded, before any task: the part of the
# figure that does not depend on the variant.
use strict;
use warnings;

use JSON::PP ();
use CoroBench::Suite ();

our $VERSION = '0.01';

sub vm_hwm_kb {
    open(my $fh, '<', '/proc/self/status') or die "cannot read /proc/self/status: $!\n";
    while (<$fh>) {
        return $1 if /^VmHWM:\s+(\d+)\s+kB/;
    }
    die "no VmHWM in /proc/self/status\n";
}

sub main {
    my ($name, $tasks) = @_;
    my $v = CoroBench::Suite::variant($name // '') or do {
        print STDERR "CoroBench::Rss: unknown variant '" . ($name // '') . "'\n";
        return 2;
    };
    $tasks //= $CoroBench::Suite::RSS_TASKS;
    my $batch = $v->{setup}->();
    my $baseline = vm_hwm_kb();
    my $completed = 0;
    $batch->(tasks => $tasks, body => sub { $completed++ });
    my $hwm = vm_hwm_kb();
    print JSON::PP->new->canonical->encode({
        variant => $name, tasks => 0 + $tasks, completed => $completed,
        baseline_kb => 0 + $baseline, hwm_kb => 0 + $hwm,
    });
    return 0;
}

1;
