package CoroBench::Child;
# Runs a piece of work in a child process with a hard time bound and hands back its result.
#
# Why a child: a Coro variant can fail in ways an eval cannot catch in-process (a task dying in
# an `async` coro exits the process; one dying in an `async_pool` coro leaves the waiter blocked
# forever; a `->join` on a pooled coro never returns). A child with an `alarm` left at its
# default action is killed whatever the scheduler is doing, so a hang becomes a named failure
# within the bound, never CI's 90 minutes. It also gives each variant a fresh process, so one
# does not inherit another's coro pool.
use strict;
use warnings;

use File::Temp ();
use JSON::PP ();
use POSIX ();

our $VERSION = '0.01';

my $JSON = JSON::PP->new->canonical->allow_nonref;

# run_code($seconds, $code): forks; the child runs $code and sends its (JSON-able) return
# value back. Returns { ok => 1, value => ... } or { ok => 0, error => "..." }.
sub run_code {
    my ($seconds, $code) = @_;
    my $res = _run($seconds, sub {
        my ($w) = @_;
        my $value = eval { $code->() };
        my $out = $@ ne '' ? { ok => 0, error => "died: $@" } : { ok => 1, value => $value };
        print {$w} $JSON->encode($out);
    });
    return $res unless $res->{ok};
    return eval { $JSON->decode($res->{raw}) }
        // { ok => 0, error => "unreadable child output: " . substr($res->{raw}, 0, 200) };
}

# run_command($seconds, @argv): fork + exec (a fresh process image, e.g. for peak RSS); the
# command must print one JSON document on stdout, which becomes the value.
sub run_command {
    my ($seconds, @argv) = @_;
    my $res = _run($seconds, sub {
        my ($w) = @_;
        open(STDOUT, '>&', $w) or die "dup stdout: $!";
        # The pending alarm survives exec, so the bound holds for the new image too.
        exec { $argv[0] } @argv or print STDERR "exec $argv[0]: $!\n";
        POSIX::_exit(127);
    });
    return $res unless $res->{ok};
    my $value = eval { $JSON->decode($res->{raw}) };
    return { ok => 0, error => "unreadable child output ($@): " . substr($res->{raw}, 0, 200) }
        unless defined $value;
    return { ok => 1, value => $value };
}

sub _run {
    my ($seconds, $child) = @_;
    pipe(my $r, my $w) or die "pipe: $!";
    # The child's stderr goes to a file, so that a failure can be reported with its last words
    # (Coro prints a dying coro's error there before exiting).
    my $errfh = File::Temp->new(TEMPLATE => 'corobench-XXXXXX', TMPDIR => 1);
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        close $r;
        open(STDERR, '>&', $errfh) or die "dup stderr: $!";
        $SIG{ALRM} = 'DEFAULT';
        alarm $seconds;
        $child->($w);
        close $w;
        POSIX::_exit(0);    # no END blocks, destructors or Test::Builder output in the child
    }
    close $w;
    my $raw = do { local $/; <$r> } // '';
    close $r;
    waitpid($pid, 0);
    my $status = $?;
    my $stderr = '';
    if (open(my $efh, '<', $errfh->filename)) { local $/; $stderr = <$efh> // '' }
    my $fail = sub {
        my ($what) = @_;
        (my $tail = length $stderr > 400 ? '...' . substr($stderr, -400) : $stderr) =~ s/\s+\z//;
        return { ok => 0, error => $tail eq '' ? $what : "$what; stderr: $tail" };
    };
    if (my $sig = $status & 127) {
        return $fail->($sig == POSIX::SIGALRM()
            ? "timed out after ${seconds}s (killed by SIGALRM)" : "killed by signal $sig");
    }
    my $exit = $status >> 8;
    return $fail->("exited with status $exit" . ($raw eq '' ? '' : ": $raw")) if $exit;
    return $fail->('child produced no result') if $raw eq '';
    print STDERR $stderr;    # a successful child's warnings are not hidden
    return { ok => 1, raw => $raw };
}

1;
