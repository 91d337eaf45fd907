package CoroBench::Runner;
# The Perl suite's runner: measures every selected benchmark and writes one JSON document in
# the `benchtrack.perl/1` format of docs/conventions.md. Exit codes follow the project's
# contract: 0 ok, 2 bad usage (nothing written), 3 a benchmark failed to run (the document is
# still written, with that benchmark under `errors`).
use strict;
use warnings;

use Coro ();
use CoroBench::Child ();
use CoroBench::Suite ();
use File::Basename ();
use File::Path ();
use File::Spec ();
use Getopt::Long ();
use JSON::PP ();
use POSIX ();
use Time::HiRes ();

our $VERSION = '0.01';

our %PROFILES = (
    # quick: the whole suite in well under 60 s on 2 busy cores.
    quick => { rounds => 10, min_time => 0.1, rss_samples => 5 },
    # full: more and longer rounds, for a steadier trend line.
    full  => { rounds => 20, min_time => 0.25, rss_samples => 10 },
);

my $USAGE = <<'EOT';
usage: perl/bin/bench [options] [FILTER...]
  --profile quick|full  rounds and round length (default $BENCH_PROFILE or quick)
  --quick, --full       shorthands for --profile
  --rounds N            timed rounds per throughput benchmark, after one warm-up (>= 5)
  --rss-samples N       fresh processes per RSS benchmark (>= 5)
  --min-time S          minimum wall-clock seconds of one round
  --tasks N             tasks per batch (default 100, as the seed)
  --sleep S             seconds slept per task in the `sleep` case (default 0.001)
  --filter RE           run only benchmarks whose name matches RE (repeatable; also
                        positional FILTERs and $BENCH_FILTER); any match selects
  --out PATH            output (default $BENCH_RAW/perl/perl.json, else
                        target/bench/raw/perl/perl.json)
  --timeout S           hard bound per benchmark (default 120)
  --list                print the benchmark names and exit
  --json                print the document on stdout instead of the table
  --quiet               no progress on stderr
EOT

# CPUs this process may use: BENCH_THREADS, else the affinity mask (so `taskset` is honoured).
sub cpu_count {
    return 0 + $ENV{BENCH_THREADS} if ($ENV{BENCH_THREADS} // '') =~ /\A[1-9][0-9]*\z/;
    if (open(my $fh, '<', '/proc/self/status')) {
        while (<$fh>) {
            next unless /^Cpus_allowed_list:\s*(\S+)/;
            my $n = 0;
            for my $part (split /,/, $1) {
                my ($lo, $hi) = $part =~ /\A(\d+)(?:-(\d+))?\z/ or next;
                $n += defined $hi ? $hi - $lo + 1 : 1;
            }
            return $n if $n;
        }
    }
    return 1;
}

sub environment {
    my (%o) = @_;
    return {
        perl => sprintf('%vd', $^V), coro => "$Coro::VERSION", cpus => cpu_count(),
        profile => $o{profile}, rounds => 0 + $o{rounds}, rss_samples => 0 + $o{rss_samples},
        min_time_s => 0 + $o{min_time}, coro_pool_size => 0 + $Coro::POOL_SIZE,
    };
}

# Runs in the measuring child: one warm-up round, then `rounds` rounds, each repeating the
# batch until at least `min_time` seconds of wall clock have passed. Returns tasks/s per round.
sub measure_throughput {
    my ($bench, $rounds, $min_time) = @_;
    my $batch = $bench->{setup}->();
    my (@samples, @iterations);
    for my $round (0 .. $rounds) {
        my ($n, $elapsed) = (0, 0);
        my $t0 = Time::HiRes::time();
        do { $batch->(); $n++ } until ($elapsed = Time::HiRes::time() - $t0) >= $min_time;
        next if $round == 0;    # warm-up
        push @samples, $n * $bench->{tasks} / $elapsed;
        push @iterations, $n;
    }
    # The AnyEvent backend behind Coro::Timer decides how long a short sleep really takes.
    return { samples => \@samples, iterations => \@iterations, event_loop => $AnyEvent::MODEL };
}

# RSS: one freshly exec'd perl per sample.
sub measure_rss {
    my ($bench, $samples, $timeout) = @_;
    my $lib = File::Basename::dirname(File::Basename::dirname($INC{'CoroBench/Suite.pm'}));
    my @kb;
    my $baseline;
    for (1 .. $samples) {
        my $res = CoroBench::Child::run_command($timeout, $^X, "-I$lib", '-MCoroBench::Rss',
            '-e', 'exit CoroBench::Rss::main(@ARGV)', $bench->{variant}, $bench->{tasks});
        die "$res->{error}\n" unless $res->{ok};
        my $v = $res->{value};
        die "ran $v->{completed} of $bench->{tasks} tasks\n" unless $v->{completed} == $bench->{tasks};
        push @kb, 0 + $v->{hwm_kb};
        $baseline //= 0 + $v->{baseline_kb};
    }
    return { samples => \@kb, baseline_kb => $baseline };
}

sub median {
    my @s = sort { $a <=> $b } @_;
    return undef unless @s;
    return @s % 2 ? $s[$#s / 2] : ($s[@s / 2 - 1] + $s[@s / 2]) / 2;
}

sub parse_args {
    my (@argv) = @_;
    # `cargo make bench-perl -- ARGS` hands the `--` on; options after it still count.
    shift @argv if @argv && $argv[0] eq '--';
    my %o = (filter => [], timeout => 120);
    my ($quick, $full);
    Getopt::Long::Configure(qw(no_ignore_case no_auto_abbrev));
    my $ok = Getopt::Long::GetOptionsFromArray(\@argv, \%o,
        'profile=s', 'rounds=i', 'rss-samples=i', 'min-time=f', 'tasks=i', 'sleep=f',
        'filter=s@', 'out=s', 'timeout=i', 'list', 'json', 'quiet', 'help',
        'quick' => \$quick, 'full' => \$full);
    die $USAGE unless $ok;
    return { help => 1 } if $o{help};
    $o{profile} = $quick ? 'quick' : $full ? 'full' : $o{profile} // $ENV{BENCH_PROFILE} // 'quick';
    my $p = $PROFILES{ $o{profile} } or die "bad --profile '$o{profile}': expected quick or full\n";
    $o{rounds}      //= $p->{rounds};
    $o{rss_samples} = delete $o{'rss-samples'} // $p->{rss_samples};
    $o{min_time}    = delete $o{'min-time'} // $p->{min_time};
    die "--rounds must be >= 5 (the tracker needs at least 5 samples)\n" if $o{rounds} < 5;
    die "--rss-samples must be >= 5\n" if $o{rss_samples} < 5;
    die "--min-time must be > 0\n" unless $o{min_time} > 0;
    die "--tasks must be >= 1\n" if defined $o{tasks} && $o{tasks} < 1;
    die "--sleep must be >= 0\n" if defined $o{sleep} && $o{sleep} < 0;
    push @{ $o{filter} }, @argv;
    push @{ $o{filter} }, $ENV{BENCH_FILTER} if !@{ $o{filter} } && ($ENV{BENCH_FILTER} // '') ne '';
    for my $f (@{ $o{filter} }) {
        eval { qr/$f/ } or die "bad filter '$f': not a regular expression\n";
    }
    $o{out} //= File::Spec->catfile($ENV{BENCH_RAW} // File::Spec->catdir('target', 'bench', 'raw'),
        'perl', 'perl.json');
    return \%o;
}

# main(@ARGV) -> exit code. `benchmarks` (tests only) replaces the suite's list.
sub main {
    my ($argv, %inject) = @_;
    my $o = eval { parse_args(@$argv) };
    if (!$o) { print STDERR "bench: $@"; return 2 }
    if ($o->{help}) { print $USAGE; return 0 }
    my @all = $inject{benchmarks} ? @{ $inject{benchmarks} }
        : CoroBench::Suite::benchmarks(tasks => $o->{tasks}, sleep => $o->{sleep});
    my @filters = map { qr/$_/ } @{ $o->{filter} };
    my @selected = @filters ? grep { my $n = $_->{name}; grep { $n =~ $_ } @filters } @all : @all;
    if ($o->{list}) { print "$_->{name}\n" for @selected; return 0 }
    return profile(@selected) if ($ENV{BENCH_COUNT_PROFILE} // '') ne '';
    return count(@selected) if ($ENV{BENCH_COUNT} // '') ne '';
    return step(@selected) if ($ENV{BENCH_STEP} // '') ne '';
    if (!@selected) {
        print STDERR "bench: no benchmark matches the filter (" . join(', ', @{ $o->{filter} })
            . "); see --list\n";
        return 2;
    }
    return run($o, @selected);
}

# Count mode (BENCH_COUNT=K, under `benchtrack callgrind`): in this process, no timing, each
# throughput benchmark warmed up once and then run K times, each run closed by getppid(), at
# which callgrind dumps its counters; one line per marker to BENCH_COUNT_LABELS names the dump.
# RSS benchmarks are not counted (their own quantity is already quiet).
sub count {
    my (@selected) = @_;
    my $iters  = $ENV{BENCH_COUNT};
    my $labels = $ENV{BENCH_COUNT_LABELS} // '';
    if ($iters !~ /\A[1-9][0-9]*\z/ || $labels eq '') {
        print STDERR "bench: BENCH_COUNT must be a positive whole number and BENCH_COUNT_LABELS a path\n";
        return 2;
    }
    open my $log, '>>', $labels or do { print STDERR "bench: cannot write $labels: $!\n"; return 2 };
    $log->autoflush(1);
    print {$log} "meta\tperl/coro\ttasks/s\n";
    for my $bench (grep { $_->{kind} eq 'throughput' } @selected) {
        my $batch = $bench->{setup}->();
        $batch->();
        print {$log} "start\t$bench->{name}\n";
        my $mark = getppid();    # the syscall callgrind dumps at (a value, or perl warns)
        for (1 .. $iters) {
            $batch->();
            $mark = getppid();
            print {$log} "sample\t$bench->{name}\t$bench->{tasks}\n";
        }
    }
    close $log or do { print STDERR "bench: cannot write $labels: $!\n"; return 2 };
    return 0;
}

# Profile mode (BENCH_COUNT_PROFILE=FILE, under `perl -d:BenchtrackProfile`, run by
# scripts/bench-perl-count.sh when the gate asks for profiles): each throughput benchmark warmed up
# once, then one run whose statements per sub (Devel::BenchtrackProfile) go to FILE as a
# benchtrack.profile/1 document, the shape benchtrack.gate.function_diff reads. Callgrind cannot name
# Perl's subs; this is no count, it runs in a process of its own.
sub profile {
    my (@selected) = @_;
    my %runs;
    for my $bench (grep { $_->{kind} eq 'throughput' } @selected) {
        my $batch = $bench->{setup}->();
        $batch->();
        %DB::benchtrack_count = ();
        $DB::benchtrack = 1;
        $batch->();
        $DB::benchtrack = 0;
        my %subs  = %DB::benchtrack_count;
        my $total = 0;
        $total += $_ for values %subs;
        $runs{ $bench->{name} } = [ { elements => $bench->{tasks} + 0, total => $total,
            functions => { map { $_ => $subs{$_} } grep { $subs{$_} >= $total * 0.0005 } keys %subs } } ];
    }
    my $doc = { schema => 'benchtrack.profile/1', source => 'statements', unit => 'Perl statements',
        benchmarks => \%runs };
    write_atomic($ENV{BENCH_COUNT_PROFILE}, JSON::PP->new->canonical->encode($doc));
    return 0;
}

# Step mode (BENCH_STEP="<in>,<out>", set by the gate's lockstep runner): no timing of its own.
# Each throughput benchmark, in sorted name order, is warmed up, offered as
# "ready NAME\tUNIT\tELEMENTS" on <out>, and timed in the steps the runner asks for on <in>
# ("run N" -> "ns T"; "next" moves on), while the other side's process takes turns on the same
# CPU (tracker/src/benchtrack/gate/lockstep.py has the protocol).
sub step {
    my (@selected) = @_;
    my ($fd_in, $fd_out) = ($ENV{BENCH_STEP} =~ /\A(\d+),(\d+)\z/) or do {
        print STDERR "bench: BENCH_STEP must be two file descriptors, '<in>,<out>'\n";
        return 2;
    };
    open my $in,  '<&=', $fd_in  or do { print STDERR "bench: BENCH_STEP fd $fd_in: $!\n";  return 2 };
    open my $out, '>&=', $fd_out or do { print STDERR "bench: BENCH_STEP fd $fd_out: $!\n"; return 2 };
    $out->autoflush(1);
    my $status = 0;
    for my $bench (sort { $a->{name} cmp $b->{name} } grep { $_->{kind} eq 'throughput' } @selected) {
        my $batch = eval { my $run = $bench->{setup}->(); $run->(); $run };
        if (!$batch) {
            (my $why = $@ || 'failed') =~ s/\s+/ /g;
            print {$out} "error $bench->{name}\t$why\n";
            $status = 3;
            next;
        }
        print {$out} "ready $bench->{name}\ttasks/s\t$bench->{tasks}\n";
        while (my $line = <$in>) {
            last if $line =~ /\Anext\b/;
            my ($n) = $line =~ /\Arun (\d+)\s*\z/ or do {
                print STDERR "bench: step mode: expected 'run N' or 'next', got '$line'\n";
                return 2;
            };
            my $t0 = Time::HiRes::clock_gettime(Time::HiRes::CLOCK_MONOTONIC());
            my $ok = eval { $batch->() for 1 .. $n; 1 };
            my $ns = (Time::HiRes::clock_gettime(Time::HiRes::CLOCK_MONOTONIC()) - $t0) * 1e9;
            if ($ok) { printf {$out} "ns %.0f\n", $ns }
            else { (my $why = $@) =~ s/\s+/ /g; print {$out} "error $why\n"; $status = 3 }
        }
    }
    return $status;
}

sub run {
    my ($o, @selected) = @_;
    my $progress = !$o->{quiet};
    my (@benchmarks, @errors, $event_loop);
    my $t_start = Time::HiRes::time();
    my $i = 0;
    for my $bench (@selected) {
        $i++;
        printf STDERR "[%2d/%d] %-36s ", $i, scalar @selected, $bench->{name} if $progress;
        my $t0 = Time::HiRes::time();
        my $res = $bench->{kind} eq 'rss'
            ? CoroBench::Child::run_code($o->{timeout} + 5,
                sub { measure_rss($bench, $o->{rss_samples}, $o->{timeout}) })
            : CoroBench::Child::run_code($o->{timeout},
                sub { measure_throughput($bench, $o->{rounds}, $o->{min_time}) });
        if (!$res->{ok}) {
            (my $msg = $res->{error}) =~ s/\s+\z//;
            push @errors, { name => $bench->{name}, message => $msg };
            print STDERR "FAILED: $msg\n" if $progress;
            next;
        }
        my $v = $res->{value};
        $event_loop //= $v->{event_loop};
        my %params = %{ $bench->{params} };
        $params{iterations} = median(@{ $v->{iterations} }) if $v->{iterations};
        $params{baseline_kb} = $v->{baseline_kb} if defined $v->{baseline_kb};
        push @benchmarks, {
            name => $bench->{name}, unit => $bench->{unit}, direction => $bench->{direction},
            samples => [ map { 0 + sprintf('%.6g', $_) } @{ $v->{samples} } ], params => \%params,
        };
        printf STDERR "%12s %-7s (%.1fs)\n", _fmt(median(@{ $v->{samples} })), $bench->{unit},
            Time::HiRes::time() - $t0 if $progress;
    }
    my $doc = {
        schema => 'benchtrack.perl/1',
        created => POSIX::strftime('%Y-%m-%dT%H:%M:%SZ', gmtime),
        env => { %{ environment(%$o) }, ($event_loop ? (event_loop => $event_loop) : ()) },
        benchmarks => \@benchmarks,
        errors => \@errors,
    };
    my $json = JSON::PP->new->canonical->pretty->encode($doc);
    write_atomic($o->{out}, $json);
    if ($o->{json}) { print $json }
    else { print_table(\@benchmarks, \@errors) }
    printf STDERR "wrote %s (%d benchmarks, %d errors) in %.1fs\n", $o->{out}, scalar @benchmarks,
        scalar @errors, Time::HiRes::time() - $t_start if $progress;
    if (@errors) {
        print STDERR "bench: failed: $_->{name}: $_->{message}\n" for @errors;
        return 3;
    }
    return 0;
}

sub write_atomic {
    my ($path, $content) = @_;
    my $dir = File::Basename::dirname($path);
    File::Path::make_path($dir) unless -d $dir;
    my $tmp = "$path.tmp.$$";
    open(my $fh, '>', $tmp) or die "cannot write $tmp: $!\n";
    print {$fh} $content;
    close $fh or die "cannot write $tmp: $!\n";
    rename($tmp, $path) or die "cannot rename $tmp to $path: $!\n";
}

sub _fmt {
    my ($x) = @_;
    my $s = sprintf('%.0f', $x);
    1 while $s =~ s/^(\d+)(\d{3})/$1,$2/;
    return $s;
}

sub print_table {
    my ($benchmarks, $errors) = @_;
    printf "%-36s %14s %-8s %8s %s\n", 'benchmark', 'median', 'unit', 'range', 'samples';
    for my $bm (@$benchmarks) {
        my @s = @{ $bm->{samples} };
        my ($lo, $hi) = (sort { $a <=> $b } @s)[0, -1];
        my $med = median(@s);
        printf "%-36s %14s %-8s %7.1f%% %d\n", $bm->{name}, _fmt($med), $bm->{unit},
            $med ? 100 * ($hi - $lo) / $med : 0, scalar @s;
    }
    printf "%-36s %14s %s\n", $_->{name}, 'FAILED', $_->{message} for @$errors;
}

1;
