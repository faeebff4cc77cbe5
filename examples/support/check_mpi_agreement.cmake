# examples/support/check_mpi_agreement.cmake — ranks agree or refuse (issue
# 33, item 2): pageview_histogram_mpi started by mpiexec's MPMD form with one
# rank's command line differing from rank 0's, in each parameter in turn,
# must exit non-zero on EVERY rank, write no release, and say on rank 0
# which parameter differs and on which rank (registered in
# examples/CMakeLists.txt).
#
#   cmake -DPROGRAM=<exe> -DMPIEXEC=<mpiexec> -DNP_FLAG=-n -DCASE=first|second|early
#         -DSAMPLE=<pageviews_sample.tsv> -DWORK=<scratch dir> -P check_mpi_agreement.cmake
#
# Each rank runs under `sh rank.sh`, which prints "rank-exit <code>" on stderr
# when the program ends, so every rank's own exit code is checked (mpiexec
# reports only the first non-zero one). Every run is under `timeout`: a rank
# left waiting in a collective fails the test instead of blocking it. The
# same command on both ranks, through the same wrapper, must release (exit 0
# twice): the control that shows the wrapper and the comparison can pass.
# CASE splits the disagreements in two halves, for two ctest entries;
# CASE=early checks what item 3 asks before the data: the sigma that --rho
# implies, and a header line's length.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/k.hex "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
file(CHMOD ${WORK}/k.hex PERMISSIONS OWNER_READ OWNER_WRITE)
file(COPY_FILE ${SAMPLE} ${WORK}/day.tsv)
file(COPY_FILE ${SAMPLE} ${WORK}/same_day.tsv)  # the same content under another name
# Another day: the sample without its last row.
file(STRINGS ${SAMPLE} lines)
list(POP_BACK lines)
list(JOIN lines "\n" text)
file(WRITE ${WORK}/other_day.tsv "${text}\n")

# (A file: a ";" in a -c string would split the CMake list.)
file(WRITE ${WORK}/rank.sh [=["$@"
echo "rank-exit $?" >&2
]=])
set(base --tsv day.tsv --secret-file k.hex --t 5 --tau 3 --rho 1 --out release.tsv)
set(generated --rows 2000 --secret-file k.hex --out release.tsv)

# changed(<out var> <list var> <option> [<value>]): the list with <option>'s
# value replaced by <value>, or the option and its value removed when no
# value is given, or appended when the list lacks it (an option may be
# given once only).
function(changed out list option)
  set(args ${${list}})
  list(FIND args ${option} at)
  if(at GREATER_EQUAL 0)
    math(EXPR value_at "${at} + 1")
    list(REMOVE_AT args ${at} ${value_at})
  endif()
  if(ARGC GREATER 3)
    list(APPEND args ${option} ${ARGV3})
  endif()
  set(${out} ${args} PARENT_SCOPE)
endfunction()

# two_ranks(<codes var> <stderr var> <rank 0 args> -- <rank 1 args>): runs
# rank 0 and rank 1 with their own arguments; sets <codes var> to the two
# ranks' exit codes (sorted) and <stderr var> to the run's stderr.
function(two_ranks codes_var err_var)
  set(first)
  set(second)
  set(in_second OFF)
  foreach(a IN LISTS ARGN)
    if(a STREQUAL "--")
      set(in_second ON)
    elseif(in_second)
      list(APPEND second ${a})
    else()
      list(APPEND first ${a})
    endif()
  endforeach()
  file(REMOVE ${WORK}/release.tsv ${WORK}/other_release.tsv)
  execute_process(
    COMMAND timeout -k 5 60 ${MPIEXEC} --oversubscribe ${NP_FLAG} 1 sh rank.sh ${PROGRAM}
            ${first} : ${NP_FLAG} 1 sh rank.sh ${PROGRAM} ${second}
    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr WORKING_DIRECTORY ${WORK})
  if(rc STREQUAL "124" OR rc STREQUAL "137")
    message(FATAL_ERROR "rank 0: ${first}\nrank 1: ${second}\ntimed out (a rank waits for "
                        "ever)\nstdout: ${stdout}\nstderr: ${stderr}")
  endif()
  string(REGEX MATCHALL "rank-exit [0-9]+" exits "${stderr}")
  list(SORT exits)
  set(${codes_var} "${exits}" PARENT_SCOPE)
  set(${err_var} "${stderr}" PARENT_SCOPE)
endfunction()

# refused(<what> <stderr regex> <rank 0 args> -- <rank 1 args>): both ranks
# exit 2, no release is written, and rank 0's one line matches the regex.
function(refused what regex)
  two_ranks(codes err ${ARGN})
  string(REPLACE ";" "," text "${err}")  # a list separator inside a match splits it
  string(REGEX MATCHALL "pageview_histogram_mpi: ${regex}" lines "${text}")
  list(LENGTH lines n)
  if(NOT codes STREQUAL "rank-exit 2;rank-exit 2" OR NOT n EQUAL 1
     OR EXISTS ${WORK}/release.tsv OR EXISTS ${WORK}/other_release.tsv)
    message(FATAL_ERROR "${what}: exits '${codes}' (expected 2 on both ranks), ${n} matching "
                        "lines (expected 1: '${regex}'), a release in ${WORK} is a failure "
                        "too\nstderr: ${err}")
  endif()
  message(STATUS "${what}: refused on both ranks, exit 2, no release")
endfunction()

if(CASE STREQUAL "first")
  # Control: the same command line on both ranks releases, and so do two
  # names for the same content (the file's identity is compared, not its name).
  two_ranks(codes err ${base} -- ${base})
  if(NOT codes STREQUAL "rank-exit 0;rank-exit 0" OR NOT EXISTS ${WORK}/release.tsv)
    message(FATAL_ERROR "the same command line on both ranks: exits '${codes}'\nstderr: ${err}")
  endif()
  two_ranks(codes err ${base} -- --tsv same_day.tsv --secret-file k.hex --t 5 --tau 3 --rho 1
            --out release.tsv)
  if(NOT codes STREQUAL "rank-exit 0;rank-exit 0" OR NOT EXISTS ${WORK}/release.tsv)
    message(FATAL_ERROR "one day under two names: exits '${codes}'\nstderr: ${err}")
  endif()
  message(STATUS "control: the same parameters on both ranks release")
  # The issue's reproducer, and each parameter in turn on rank 1.
  changed(rank1 base --rho 1000)
  refused("--rho" "--rho: 1000 on rank 1, 1 on rank 0, allowed: the same value on every rank"
          ${base} -- ${rank1})
  changed(rank1 base --k 3)
  refused("--k" "--k: 3 on rank 1, 10 on rank 0" ${base} -- ${rank1})
  changed(rank1 base --t 6)
  refused("--t" "--t: 6 on rank 1, 5 on rank 0" ${base} -- ${rank1})
  changed(rank1 base --tau 4)
  refused("--tau" "--tau: 4 on rank 1, 3 on rank 0" ${base} -- ${rank1})
  changed(rank1 base --tsv other_day.tsv)
  refused("--tsv (another day)" "--tsv: other_day.tsv \\([0-9]+ bytes[^)]*\\) on rank 1, day.tsv"
          ${base} -- ${rank1})
  changed(rank1 base --tsv)
  refused("--tsv on rank 0 only" "--tsv: none \\(a generated day\\) on rank 1, day.tsv" ${base} --
          ${rank1})
  changed(rank1 base --policy client)
  refused("--policy" "--policy: client on rank 1, actor on rank 0" ${base} -- ${rank1})
elseif(CASE STREQUAL "second")
  # --single-process on one rank only: before issue 33 rank 0 waited for ever.
  refused("--single-process on rank 1 only"
          "--single-process: given on rank 1, not given on rank 0" ${base} -- ${base}
          --single-process)
  refused("--single-process on rank 0 only"
          "--single-process: not given on rank 1, given on rank 0" ${base} --single-process --
          ${base})
  changed(rank1 generated --rows 2001)
  refused("--rows" "--rows: 2001 on rank 1, 2000 on rank 0" ${generated} -- ${rank1})
  changed(rank1 generated --seed 7)
  refused("--seed" "--seed: 7 on rank 1, 20261123 on rank 0" ${generated} -- ${rank1})
  changed(rank1 base --secret-file)
  refused("--secret-file" "--secret-file: not given on rank 1, k.hex on rank 0" ${base} --
          ${rank1})
  changed(rank1 base --out other_release.tsv)
  refused("--out" "--out: other_release.tsv on rank 1, release.tsv on rank 0" ${base} --
          ${rank1})
  # A command line that rank 1 alone refuses: rank 0 prints rank 1's reason.
  changed(rank1 base --k 0)
  refused("a value only rank 1 refuses"
          "rank 1 refused its command line: --k: 0 is out of range, allowed: 1 to 1000000"
          ${base} -- ${rank1})
  refused("--help on rank 1 only" "--help: given on rank 1 and not on rank 0" ${base} -- --help)
elseif(CASE STREQUAL "early")
  # Item 3's checks before the data, on 2 ranks with the same command line.
  # --rho 1e-30 implies a sigma out of the sampler's range: refused before
  # the day is generated (4 * 10^9 rows: generating it would outlast the
  # timeout), exit 2 on both ranks, no release.
  set(huge --rows 4000000000 --secret-file k.hex --out release.tsv --rho 1e-30)
  refused("--rho 1e-30" "the parameters: privet: sigma = [0-9]+ is invalid" ${huge} -- ${huge})
  # A header line without its end: refused after reading at most the
  # reader's line limit and its line end (before issue 33, getline held the
  # whole file), exit 1 on both ranks (a failure of the data, not a
  # refusal of the command line), no release.
  string(REPEAT "a" 70000 long)
  file(WRITE ${WORK}/no_newline.tsv "${long}${long}")
  set(headless --tsv no_newline.tsv --secret-file k.hex --out release.tsv)
  two_ranks(codes err ${headless} -- ${headless})
  if(NOT codes STREQUAL "rank-exit 1;rank-exit 1" OR EXISTS ${WORK}/release.tsv
     OR NOT err MATCHES "no_newline.tsv: no header line end in its first 65538 bytes")
    message(FATAL_ERROR "a header without its end: exits '${codes}' (expected 1 on both ranks)"
                        "\nstderr: ${err}")
  endif()
  message(STATUS "a header without its end: refused on both ranks after 65538 bytes")
else()
  message(FATAL_ERROR "CASE=${CASE}; allowed: first, second or early")
endif()
