package CoroPatterns;
# The Coro task-launching patterns of seed 002 ("Coro: async vs async_pool"), as library code.
#
# Every run_* sub launches `tasks` tasks, each calling `body->($i)` for i = 1..tasks, and
# returns only when all of them have finished. Completion is collected through a
# Coro::Semaphore that starts at 1 - tasks, as in the seed: `->join` is never used, because a
# pooled coro is reused and so never terminates (joining one would hang forever).
#
# The per-task code is kept as lean as the seed's (one closure, one call, one `up`), because
# with a trivial body that overhead is what is being measured: an `eval` per task costs ~15%
# and blurs the ratios between variants. So a task that dies is not caught here. Coro's own
# behaviour applies: in an `async` coro (and an own-pool worker) it ends the process; in an
# `async_pool` coro Coro warns and recycles the coro, so the wait never completes. Callers
# that must survive that (the runner, the tests) run a batch in a child process with a time
# bound (CoroBench::Child).
use strict;
use warnings;

use Coro ();
use Coro::Semaphore ();
use Coro::Channel ();
use Coro::Timer ();

our $VERSION = '0.01';

# Seed defaults: 100 tasks per batch, a 1 ms sleep in the "sleep" case, 10 own-pool workers,
# 50 as the "larger" limit.
our $TASKS       = 100;
our $SLEEP       = 0.001;
our $WORKERS     = 10;
our $LARGE_LIMIT = 50;

sub _args {
    my (%a) = @_;
    my $tasks = $a{tasks} // $TASKS;
    die "tasks must be a positive integer\n" unless $tasks =~ /\A[1-9][0-9]*\z/;
    die "body must be a code ref\n" unless ref $a{body} eq 'CODE';
    # Starts at 1 - tasks: `down` succeeds only after every task has done its `up`.
    return ($tasks, $a{body}, Coro::Semaphore->new(1 - $tasks), \%a);
}

# (1) a brand-new coro per task.
sub run_async {
    my ($tasks, $body, $done) = _args(@_);
    for my $i (1 .. $tasks) {
        Coro::async(sub { $body->($i); $done->up });
    }
    $done->down;
}

# (2) async_pool, unbounded: all tasks are started before any runs, so the pool (which only
# keeps up to $Coro::POOL_SIZE *idle* coros) has to create `tasks` coros anyway.
sub run_async_pool {
    my ($tasks, $body, $done) = _args(@_);
    for my $i (1 .. $tasks) {
        Coro::async_pool(sub { $body->($i); $done->up });
    }
    $done->down;
}

# (3) async_pool limited by a semaphore of `limit` (default $Coro::POOL_SIZE): at most `limit`
# tasks in flight, so finished coros go back to the idle pool and are reused. A limit above
# $Coro::POOL_SIZE only reuses coros if the caller raises $Coro::POOL_SIZE too (the seed sets
# both to 50); otherwise the coros beyond the idle-pool size are destroyed and re-created.
sub run_async_pool_limited {
    my ($tasks, $body, $done, $a) = _args(@_);
    my $limit = Coro::Semaphore->new($a->{limit} // $Coro::POOL_SIZE);
    for my $i (1 .. $tasks) {
        $limit->down;    # blocks the launcher (the caller) until a slot is free
        Coro::async_pool(sub { $body->($i); $done->up; $limit->up });
    }
    $done->down;
}

# (4) an own pool: W long-lived workers reading code refs from a Coro::Channel.
sub run_pool_chan {
    my ($tasks, $body, $done, $a) = _args(@_);
    my $pool = $a->{pool} or die "run_pool_chan needs pool => CoroPatterns::ChanPool->new(W)\n";
    for my $i (1 .. $tasks) {
        $pool->submit(sub { $body->($i); $done->up });
    }
    $done->down;
}

# The seed's `my_async_pool`: a channel (capacity W) read by W worker coros. Unlike async_pool
# it is private to its owner, so someone else's unbounded use cannot exhaust it.
package CoroPatterns::ChanPool;

sub new {
    my ($class, $workers, $capacity) = @_;
    $workers //= $CoroPatterns::WORKERS;
    die "workers must be a positive integer\n" unless $workers =~ /\A[1-9][0-9]*\z/;
    my $queue = Coro::Channel->new($capacity // $workers);
    # undef is the stop signal used by shutdown. No eval per job, like the seed's loop (see the
    # note at the top): a job that dies ends the process rather than silently shrinking the pool.
    my @coros = map {
        Coro::async(sub {
            while (defined(my $job = $queue->get)) { $job->() }
        });
    } 1 .. $workers;
    return bless { queue => $queue, coros => \@coros, workers => $workers }, $class;
}

sub workers { $_[0]{workers} }

# Blocks while the channel is full, which is what bounds the work in flight.
sub submit {
    my ($self, $job) = @_;
    die "ChanPool is shut down\n" unless $self->{coros};
    $self->{queue}->put($job);
    return;
}

# Stops every worker after the jobs already queued; joining is safe here because these are
# plain async coros that terminate, not pooled ones.
sub shutdown {
    my ($self) = @_;
    my $coros = delete $self->{coros} or return;
    $self->{queue}->put(undef) for @$coros;
    $_->join for @$coros;
    return;
}

1;
