package CoroBench::Suite;
# The benchmarks of the Perl suite: each CoroPatterns variant, (a) with a trivial body and
# (b) with a Coro::Timer::sleep in the body, as throughput in tasks/s; and the peak RSS of each
# variant after 10,000 tasks, in KB, smaller is better.
use strict;
use warnings;

use Coro ();
use Coro::Timer ();
use CoroPatterns ();

our $VERSION = '0.01';

our $RSS_TASKS = 10_000;    # as in the seed

# Each variant's `setup` runs once in the process that measures it (a fresh child) and returns
# a `batch` sub: batch(tasks => N, body => CODE) runs N tasks and waits for all of them.
# Changing $Coro::POOL_SIZE there is therefore safe: it is that child's global.
sub variants {
    my $default_pool = $Coro::POOL_SIZE;
    return (
        { variant => 'async', params => {},
          setup => sub { \&CoroPatterns::run_async } },
        { variant => 'async_pool', params => { pool_size => $default_pool },
          setup => sub { \&CoroPatterns::run_async_pool } },
        { variant => 'async_pool_sem', params => { limit => $default_pool, pool_size => $default_pool },
          setup => sub { \&CoroPatterns::run_async_pool_limited } },
        # The seed's "POOL_SIZE = 50": a larger limit only reuses coros if the idle pool may
        # hold that many, so both are raised.
        { variant => "async_pool_sem$CoroPatterns::LARGE_LIMIT",
          params => { limit => $CoroPatterns::LARGE_LIMIT, pool_size => $CoroPatterns::LARGE_LIMIT },
          setup => sub {
              $Coro::POOL_SIZE = $CoroPatterns::LARGE_LIMIT;
              return sub { CoroPatterns::run_async_pool_limited(@_, limit => $CoroPatterns::LARGE_LIMIT) };
          } },
        { variant => 'pool_chan', params => { workers => $CoroPatterns::WORKERS },
          setup => sub {
              my $pool = CoroPatterns::ChanPool->new($CoroPatterns::WORKERS);
              return sub { CoroPatterns::run_pool_chan(@_, pool => $pool) };
          } },
    );
}

sub variant {
    my ($name) = @_;
    my ($v) = grep { $_->{variant} eq $name } variants();
    return $v;
}

# The body of each case. `sleep` yields to the event loop (AnyEvent, EV here) for $sleep s.
sub bodies {
    my ($sleep) = @_;
    return (
        trivial => sub { },
        sleep   => sub { Coro::Timer::sleep($sleep) },
    );
}

# benchmarks(tasks => 100, sleep => 0.001, rss_tasks => 10000): the full list, in run order.
# kind `throughput`: setup() -> batch sub, run by the runner in a forked child.
# kind `rss`: measured by CoroBench::Rss in a freshly exec'd perl, one per sample.
sub benchmarks {
    my (%o) = @_;
    my $tasks     = $o{tasks}     // $CoroPatterns::TASKS;
    my $sleep     = $o{sleep}     // $CoroPatterns::SLEEP;
    my $rss_tasks = $o{rss_tasks} // $RSS_TASKS;
    my %body = bodies($sleep);
    my @out;
    for my $case (qw(trivial sleep)) {
        for my $v (variants()) {
            my $body = $body{$case};
            push @out, {
                name => "perl/coro/$v->{variant}/$case", kind => 'throughput',
                unit => 'tasks/s', direction => 'bigger', tasks => $tasks,
                params => { %{ $v->{params} }, tasks => $tasks, ($case eq 'sleep' ? (sleep_s => $sleep) : ()) },
                setup => sub {
                    my $batch = $v->{setup}->();
                    return sub { $batch->(tasks => $tasks, body => $body) };
                },
            };
        }
    }
    for my $v (variants()) {
        push @out, {
            name => "perl/rss/$v->{variant}", kind => 'rss', variant => $v->{variant},
            unit => 'KB', direction => 'smaller', tasks => $rss_tasks,
            params => { %{ $v->{params} }, tasks => $rss_tasks, measure => 'VmHWM' },
        };
    }
    return @out;
}

1;
