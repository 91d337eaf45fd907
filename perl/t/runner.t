#!/usr/bin/env perl
# The runner: its JSON (benchtrack.perl/1, docs/conventions.md), its flags, and its failure
# handling (a dying or hanging variant is named, written under `errors`, exit 3).
use strict;
use warnings;
use FindBin ();
use lib "$FindBin::Bin/../lib";
use Test::More;
use File::Temp ();
use JSON::PP ();
use Scalar::Util ();

use Coro ();
use CoroPatterns ();
use CoroBench::Child ();
use CoroBench::Runner ();
use CoroBench::Suite ();

my $BENCH = "$FindBin::Bin/../bin/bench";
my $dir = File::Temp->newdir;
my $json = JSON::PP->new;

sub slurp_json { my ($p) = @_; open(my $fh, '<', $p) or return undef; local $/; $json->decode(<$fh>) }

# The runner itself, quick profile, tiny rounds, bounded; --json puts the document on stdout.
my $out = "$dir/perl.json";
my $r = CoroBench::Child::run_command(240, $^X, $BENCH, '--quick', '--rounds', 5, '--min-time', 0.005,
    '--rss-samples', 5, '--quiet', '--json', '--out', $out);
ok $r->{ok}, 'bench --quick ran and exited 0' or diag $r->{error};
my $doc = $r->{value} // {};
is_deeply slurp_json($out), $doc, 'the file holds the document printed with --json';

is $doc->{schema}, 'benchtrack.perl/1', 'schema';
like $doc->{created} // '', qr/\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\z/, 'created is ISO 8601 UTC';
my $env = $doc->{env} // {};
is $env->{perl}, sprintf('%vd', $^V), 'env.perl';
is $env->{coro}, "$Coro::VERSION", 'env.coro';
like $env->{cpus} // '', qr/\A[1-9]\d*\z/, 'env.cpus is a positive integer';
is $env->{profile}, 'quick', 'env.profile';
is $env->{rounds}, 5, 'env.rounds';
is_deeply $doc->{errors}, [], 'no errors';

my @expected = map { $_->{name} } CoroBench::Suite::benchmarks();
is scalar(@expected), 15, '5 variants x (trivial, sleep) + 5 RSS benchmarks';
is_deeply [ map { $_->{name} } @{ $doc->{benchmarks} // [] } ], \@expected, 'every benchmark, in order, once';
for my $b (@{ $doc->{benchmarks} // [] }) {
    my $rss = $b->{name} =~ m{\Aperl/rss/};
    like $b->{name}, $rss ? qr{\Aperl/rss/\w+\z} : qr{\Aperl/coro/\w+/(trivial|sleep)\z}, "$b->{name}: name form";
    is $b->{unit}, $rss ? 'KB' : 'tasks/s', "$b->{name}: unit";
    is $b->{direction}, $rss ? 'smaller' : 'bigger', "$b->{name}: direction";
    my @s = @{ $b->{samples} // [] };
    cmp_ok scalar(@s), '>=', 5, "$b->{name}: >= 5 samples";
    is scalar(grep { !ref && Scalar::Util::looks_like_number($_) && $_ > 0 } @s), scalar(@s),
        "$b->{name}: samples are positive numbers";
    is $b->{params}{tasks}, $rss ? 10_000 : 100, "$b->{name}: params.tasks";
    if ($rss) {
        like $b->{params}{baseline_kb} // '', qr/\A[1-9]\d*\z/, "$b->{name}: params.baseline_kb (KB before any task)";
        is scalar(grep { /\A[1-9]\d*\z/ } @s), scalar(@s), "$b->{name}: whole KB";
    }
}
# Numbers are JSON numbers, not strings (the tracker reads them as floats).
{
    open(my $fh, '<', $out) or die;
    my $text = do { local $/; <$fh> };
    unlike $text, qr/"samples"\s*:\s*\[\s*"/, 'samples are written as JSON numbers';
}

# Filters, BENCH_THREADS and the profile flag.
{
    local $ENV{BENCH_THREADS} = 3;
    my $o2 = "$dir/filtered.json";
    my $r2 = CoroBench::Child::run_command(120, $^X, $BENCH, '--full', '--rounds', 5, '--min-time', 0.005,
        '--quiet', '--json', '--out', $o2, '--', 'coro/async/trivial');
    ok $r2->{ok}, 'filtered run' or diag $r2->{error};
    is_deeply [ map { $_->{name} } @{ $r2->{value}{benchmarks} // [] } ], ['perl/coro/async/trivial'],
        'a positional filter selects by name';
    is $r2->{value}{env}{cpus}, 3, 'BENCH_THREADS sets env.cpus';
    is $r2->{value}{env}{profile}, 'full', '--full sets the profile';
}
SKIP: {
    skip 'taskset not available', 1 unless grep { -x "$_/taskset" } split /:/, $ENV{PATH};
    local $ENV{BENCH_THREADS};
    delete $ENV{BENCH_THREADS};
    chomp(my $n = `taskset -c 0 $^X -I$FindBin::Bin/../lib -MCoroBench::Runner -e 'print CoroBench::Runner::cpu_count()'`);
    is $n, 1, 'without BENCH_THREADS, cpus follows the affinity mask (taskset -c 0)';
}

# Usage errors: exit 2, nothing written.
for my $case ([[ '--rounds', 3 ], qr/--rounds must be >= 5/], [[ '--profile', 'slow' ], qr/bad --profile 'slow'/],
    [['no-such-benchmark'], qr/no benchmark matches/], [[ '--filter', '(' ], qr/bad filter '\('/]) {
    my ($bad, $why) = @$case;
    my $p = "$dir/bad.json";
    open(my $saved, '>&', \*STDERR) or die;
    open(STDERR, '>', "$dir/usage.txt") or die;
    my $rc = CoroBench::Runner::main([ @$bad, '--quiet', '--out', $p ]);
    open(STDERR, '>&', $saved) or die;
    is $rc, 2, "bad usage (@$bad) exits 2";
    ok !-e $p, "bad usage (@$bad) writes nothing";
    like do { open(my $fh, '<', "$dir/usage.txt") or die; local $/; <$fh> }, $why, "bad usage (@$bad) says why";
}

# A variant that dies, and one that hangs: both named, both under `errors`, exit 3, and the
# healthy benchmark is still measured and written.
{
    my $tasks = 100;
    my ($good) = grep { $_->{name} eq 'perl/coro/async/trivial' } CoroBench::Suite::benchmarks();
    my @benchmarks = (
        $good,
        { name => 'perl/coro/async/dies', kind => 'throughput', unit => 'tasks/s', direction => 'bigger',
          tasks => $tasks, params => { tasks => $tasks },
          setup => sub { sub { CoroPatterns::run_async(tasks => $tasks, body => sub { die "boom in task $_[0]\n" if $_[0] == 7 }) } } },
        { name => 'perl/coro/async_pool/hangs', kind => 'throughput', unit => 'tasks/s', direction => 'bigger',
          tasks => $tasks, params => { tasks => $tasks },
          setup => sub { sub { CoroPatterns::run_async_pool(tasks => $tasks, body => sub { die "lost task $_[0]\n" if $_[0] == 9 }) } } },
    );
    my $p = "$dir/failing.json";
    open(my $saved, '>&', \*STDERR) or die;
    open(STDERR, '>', "$dir/stderr.txt") or die;
    my $rc = CoroBench::Runner::main([ '--rounds', 5, '--min-time', 0.005, '--timeout', 3, '--out', $p ],
        benchmarks => \@benchmarks);
    open(STDERR, '>&', $saved) or die;
    is $rc, 3, 'a failed benchmark makes the runner exit 3';
    my $stderr = do { open(my $fh, '<', "$dir/stderr.txt") or die; local $/; <$fh> };
    like $stderr, qr{failed: perl/coro/async/dies: .*boom in task 7}s, 'stderr names the dying variant and its error';
    like $stderr, qr{failed: perl/coro/async_pool/hangs: timed out after 3s}, 'stderr names the hanging variant';
    my $d = slurp_json($p);
    ok $d, 'the document is still written';
    is_deeply [ map { $_->{name} } @{ $d->{benchmarks} } ], ['perl/coro/async/trivial'], 'healthy benchmark kept';
    is_deeply [ map { $_->{name} } @{ $d->{errors} } ], [ 'perl/coro/async/dies', 'perl/coro/async_pool/hangs' ],
        'failed benchmarks are under errors';
    like $d->{errors}[0]{message}, qr/boom in task 7/, 'the error message carries the cause';
}

done_testing;
