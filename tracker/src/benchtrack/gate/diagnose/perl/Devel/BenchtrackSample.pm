package Devel::BenchtrackSample;
# `PERL5OPT=-d:BenchtrackSample` (the gate's diagnosis, gate/diagnose/perlsub.py): a wall-clock
# sampler of Perl subs, Coro-aware, without signals. Only the sub hook is on ($^P 0x01, with
# 0x200: anonymous subs named by their file and line): every sub call, Perl or XS, goes through
# DB::sub, which reads the monotonic clock before and after the call. A sample is due every
# $PERIOD seconds; at the first hook at or after it, the samples due since are counted to what
# ran since the hook before: after a call returns, the sub that returned (its caller's stack and
# it: a blocking XS call such as Time::HiRes::sleep is its own); before a call, its caller (and,
# where the hook before was the entry of a sub not on the caller's stack, an XS sub calling back
# into Perl, e.g. an event loop, that sub: the wait is its). Each sample records the process's
# CPU time over the wall time since the sample before (its on-CPU share), the running coro (a
# coro's stack is its own: the "thread" of the profile) and the time. Written at exit (END) to
# $ENV{BENCHTRACK_SAMPLES}: "TIME COUNT ONCPU THREAD\tSUB;SUB;...", outermost first; the gate
# keeps the samples within its steps' windows (both read CLOCK_MONOTONIC).
BEGIN { $^P = 0 }    # nothing below is hooked
use strict;
use warnings;
use Time::HiRes ();
use Sub::Util   ();

our $VERSION = '0.01';

package DB;    ## no critic (Modules::ProhibitMultiplePackages)
our ($sub, $single, $trace, $signal);
my $PERIOD = 0.001;
my $MONO   = Time::HiRes::CLOCK_MONOTONIC();
my $CPU    = Time::HiRes::CLOCK_PROCESS_CPUTIME_ID();
my $OUT    = $ENV{BENCHTRACK_SAMPLES};
my (@taken, $before, $before_entry);
my $next = Time::HiRes::clock_gettime($MONO) + $PERIOD;
my ($last_t, $last_cpu) = ($next - $PERIOD, Time::HiRes::clock_gettime($CPU));

sub DB { }

sub _thread {
    no warnings 'once';
    my $c = $Coro::current or return 'main';
    return 'main' if defined $Coro::main && $c == $Coro::main;
    my $desc = eval { $c->desc } // '';
    return $desc ne '' ? "coro: $desc" : 'coro';
}

sub _sample {
    my ($t, $inner, $entry) = @_;
    $inner = Sub::Util::subname($inner) // '__ANON__' if ref $inner;
    my $k = 0;
    while ($next <= $t) { $k++; $next += $PERIOD }
    my $cpu = Time::HiRes::clock_gettime($CPU);
    my $on  = $t > $last_t ? ($cpu - $last_cpu) / ($t - $last_t) : 0;
    ($last_t, $last_cpu) = ($t, $cpu);
    my @stack;
    for (my $i = 1; my @c = caller $i; $i++) {
        unshift @stack, $c[3] unless $c[3] =~ /\ADB::/;
    }
    push @stack, $inner if defined $inner && !($entry && @stack && $stack[-1] eq $inner);
    push @taken, sprintf "%.6f %d %.3f %s\t%s", $t, $k, $on > 1 ? 1 : $on, _thread(),
        join ';', @stack;
    return;
}

sub sub {
    no strict 'refs';    ## no critic (TestingAndDebugging::ProhibitNoStrict)
    my $called = $sub;   # a name, or a code reference (named only when a sample needs it)
    my $t      = Time::HiRes::clock_gettime($MONO);
    _sample($t, $before_entry ? $before : undef, 1) if $t >= $next;
    ($before, $before_entry) = ($called, 1);
    my (@r, $r);
    if    (wantarray)         { @r = &$called }
    elsif (defined wantarray) { $r = &$called }
    else                      { &$called }
    $t = Time::HiRes::clock_gettime($MONO);
    _sample($t, $called, 0) if $t >= $next;
    ($before, $before_entry) = ($called, 0);
    return wantarray ? @r : $r;
}

END {
    if (defined $OUT && open my $fh, '>', $OUT) {
        print {$fh} "$_\n" for @taken;
        close $fh;
    }
}

BEGIN { $^P = 0x01 | 0x200 }    # code compiled from here on: every sub call through DB::sub

1;
