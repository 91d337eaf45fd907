package Devel::BenchtrackProfile;
# `perl -d:BenchtrackProfile perl/bin/bench` (count mode, run by scripts/bench-perl-count.sh when
# the gate asks for profiles): counts the statements each sub executes while $DB::benchtrack is
# true, in %DB::benchtrack_count ("Package::sub (file)"). Callgrind cannot name Perl's subs (it
# sees the interpreter, and Debian's perl binary is stripped), so this is the Perl view of
# "which functions did more work" (benchtrack.gate.function_diff). Anonymous subs are named by their
# file. Only the line hook is on ($^P 0x02): no DB::sub, so calls cost what they always do.
use strict;
use warnings;

our $VERSION = '0.01';

package DB;    ## no critic (Modules::ProhibitMultiplePackages)
our ($benchtrack, %benchtrack_count, $trace);
BEGIN { $^P = 0x02 }
$trace = 1;    # DB::DB before every statement of code compiled from here on

sub DB {
    return unless $benchtrack;
    my $sub  = (caller(1))[3] // 'main';
    my $file = (caller(0))[1] // '?';
    $file = join '/', (File::Spec::Unix->splitdir($file))[-2, -1] if $file =~ m{^/};
    $benchtrack_count{"$sub ($file)"}++;
    return;
}

use File::Spec::Unix ();

1;
