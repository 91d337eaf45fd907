#!/usr/bin/env perl
# Correctness of every Coro pattern: each task runs exactly once, the waiter returns only when
# all have run, the limits hold, and a hang or a dying task fails within a bound.
# Each case runs in a child with an alarm (CoroBench::Child), so a hang fails that case fast.
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::Bin/../lib";
use Test::More;
use Scalar::Util ();

use Coro ();
use Coro::Timer ();
use AnyEvent ();
use CoroPatterns ();
use CoroBench::Child ();
use CoroBench::Suite ();

my $BOUND = 30;    # seconds; generous for a loaded 2-core machine, small next to CI's 90 min

my @variants = CoroBench::Suite::variants();
is_deeply [ map { $_->{variant} } @variants ],
    [qw(async async_pool async_pool_sem async_pool_sem50 pool_chan)], 'the five variants of the seed';

# Runs `batches` batches of `tasks` tasks of one variant with an instrumented body, in a child.
sub probe {
    my ($v, %o) = @_;
    return CoroBench::Child::run_code($BOUND, sub {
        my $batch = $v->{setup}->();
        my (%count, %coro, $in_flight, $max_in_flight, $returned_early);
        $in_flight = $max_in_flight = 0;
        for my $b (1 .. ($o{batches} // 1)) {
            my $done_in_batch = 0;
            $batch->(tasks => $o{tasks}, body => sub {
                my ($i) = @_;
                $count{"$b:$i"}++;
                $coro{ Scalar::Util::refaddr($Coro::current) } = 1;
                $max_in_flight = $in_flight if ++$in_flight > $max_in_flight;
                Coro::Timer::sleep($o{sleep}) if $o{sleep};
                $in_flight--;
                $done_in_batch++;
            });
            # The waiter must not return before every task of the batch has finished.
            $returned_early++ if $done_in_batch != $o{tasks};
        }
        my @bad = grep { $count{$_} != 1 } keys %count;
        return { runs => scalar(keys %count), not_once => scalar(@bad), max_in_flight => $max_in_flight,
            coros => scalar(keys %coro), returned_early => $returned_early // 0 };
    });
}

my %limit = (async => undef, async_pool => undef, async_pool_sem => $Coro::POOL_SIZE,
    async_pool_sem50 => 50, pool_chan => $CoroPatterns::WORKERS);

for my $v (@variants) {
    my $name = $v->{variant};
    for my $case ([trivial => 0], [sleep => 0.001]) {
        my ($label, $sleep) = @$case;
        for my $tasks (1, 100, 1000) {
            next if $sleep && $tasks == 1000 && defined $limit{$name} && $limit{$name} < 20;    # keep it short
            my $r = probe($v, tasks => $tasks, sleep => $sleep, batches => 3);
            ok $r->{ok}, "$name/$label x$tasks finished within ${BOUND}s" or diag $r->{error};
            next unless $r->{ok};
            my $got = $r->{value};
            is $got->{runs}, 3 * $tasks, "$name/$label x$tasks: every task ran";
            is $got->{not_once}, 0, "$name/$label x$tasks: each exactly once";
            is $got->{returned_early}, 0, "$name/$label x$tasks: the wait covered all tasks";
            next unless $sleep && $tasks >= 100;
            # With a sleeping body, the in-flight maximum shows the pattern's real bound.
            my $want = defined $limit{$name} ? $limit{$name} : $tasks;
            is $got->{max_in_flight}, $want, "$name/$label x$tasks: at most (and up to) $want in flight";
        }
    }
}

# Reuse: a bounded pool runs 3 x 100 tasks on at most `limit` coros; unbounded ones need more.
for my $v (@variants) {
    my $r = probe($v, tasks => 100, batches => 3);
    ok $r->{ok}, "$v->{variant}: coro count probe finished" or next;
    my $coros = $r->{value}{coros};
    if (defined $limit{ $v->{variant} }) {
        cmp_ok $coros, '<=', $limit{ $v->{variant} }, "$v->{variant}: tasks share <= $limit{$v->{variant}} coros";
    } else {
        cmp_ok $coros, '>=', 100, "$v->{variant}: a batch of 100 needs 100 coros ($coros)";
    }
}

# A dying task makes the run fail (within the bound) instead of passing silently.
for my $v (@variants) {
    my $r = CoroBench::Child::run_code(2, sub {
        my $batch = $v->{setup}->();
        $batch->(tasks => 100, body => sub { die "task $_[0] failed\n" if $_[0] == 42 });
        return 'returned';
    });
    ok !$r->{ok}, "$v->{variant}: a dying task fails the run";
    like $r->{error} // '', qr/task 42 failed/, "$v->{variant}: the failure carries the task's error";
}

# The seed's pitfall, and proof that the bound catches a hang: ->join on a pooled coro never
# returns (the coro goes back to the pool instead of terminating).
{
    my $r = CoroBench::Child::run_code(2, sub {
        my $keepalive = AE::timer(0.05, 0.05, sub { });    # an event loop with work: a hang, not a deadlock
        my $c = Coro::async_pool(sub { 1 });
        $c->join;
        return 'joined';
    });
    ok !$r->{ok}, '->join on an async_pool coro does not return';
    like $r->{error} // '', qr/timed out after 2s/, 'the hang is cut by the time bound';
}

# The own pool: shutdown ends every worker after the queued jobs; no use after shutdown.
{
    my $r = CoroBench::Child::run_code($BOUND, sub {
        my $pool = CoroPatterns::ChanPool->new(4);
        my $ran = 0;
        $pool->submit(sub { Coro::Timer::sleep(0.001); $ran++ }) for 1 .. 20;
        $pool->shutdown;
        my $after = eval { $pool->submit(sub { }); 1 } ? 'accepted' : 'refused';
        return { ran => $ran, after => $after, workers => $pool->workers };
    });
    ok $r->{ok}, 'ChanPool shutdown returns' or diag $r->{error};
    is_deeply $r->{value}, { ran => 20, after => 'refused', workers => 4 }, 'queued jobs ran, then the pool refuses';
}

# Arguments are checked.
for my $bad ([tasks => 0], [tasks => 'x'], [tasks => -1]) {
    ok !eval { CoroPatterns::run_async(@$bad, body => sub { }); 1 }, "run_async rejects @$bad";
}
ok !eval { CoroPatterns::run_async(tasks => 1, body => 'nope'); 1 }, 'run_async rejects a non-code body';
ok !eval { CoroPatterns::run_pool_chan(tasks => 1, body => sub { }); 1 }, 'run_pool_chan needs a pool';

done_testing;
