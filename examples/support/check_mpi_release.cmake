# examples/support/check_mpi_release.cmake — pageview_histogram_mpi gives,
# for one secret, the same release on 1, 2 and 3 ranks as in one process
# (--single-process: pageview::histogram alone, no collective), byte for
# byte (registered in examples/CMakeLists.txt).
#
#   cmake -DPROGRAM=<exe> -DMPIEXEC=<mpiexec> -DNP_FLAG=-n -DCASE=generated|tsv
#         -DSAMPLE=<pageviews_sample.tsv> -DWORK=<scratch dir> -P check_mpi_release.cmake
#
# generated: a generated day of 20011 rows (prime: no rank count divides
#   it) on 1, 2 and 3 ranks against one process, under a secret from a file;
#   another secret must change the release (else the comparison could not
#   fail for want of noise).
# tsv: the embedded sample (1500 rows) split by bytes over 3 ranks with a
#   fresh secret that rank 0 writes (--write-secret, mode 0600), then read
#   back by one process and by 2 ranks, and on 2 and 3 ranks in rounds of
#   4 KiB (--round-bytes: many exchanges); a file of two rows, one with CRLF
#   and the last without a newline, over 3 ranks (a rank reads no rows);
#   and a malformed secret file under mpiexec: exit 2, one refusal, no hang.
# Every run's row count (stdout) must be the file's or the day's: a line
# read twice or by no rank fails there even if the release hides it.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# run(<np or "single"> <expected rows> <out var> <args>...): runs the program
# on np ranks, or as one process with --single-process; fails unless it exits
# 0 and reports <expected rows> rows; sets <out var> to its stdout.
function(run np rows out)
  if(np STREQUAL "single")
    set(cmd ${PROGRAM} --single-process ${ARGN})
  else()
    set(cmd ${MPIEXEC} ${NP_FLAG} ${np} --oversubscribe ${PROGRAM} ${ARGN})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout
                  ERROR_VARIABLE stderr TIMEOUT 60 WORKING_DIRECTORY ${WORK})
  string(REPLACE ";" " " shown "${cmd}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${shown}: exit ${rc}\nstdout: ${stdout}\nstderr: ${stderr}")
  endif()
  if(NOT stdout MATCHES "\n +${rows} rows on ")
    message(FATAL_ERROR "${shown}: expected ${rows} rows read in all:\n${stdout}")
  endif()
  message(STATUS "${np}: ${shown}: ok")
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

# same(<a> <b>): the two release files are equal byte for byte.
function(same a b)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/${a} ${WORK}/${b}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(READ ${WORK}/${a} ta)
    file(READ ${WORK}/${b} tb)
    message(FATAL_ERROR "${a} and ${b} differ:\n--- ${a}\n${ta}\n--- ${b}\n${tb}")
  endif()
  message(STATUS "${a} == ${b}")
endfunction()

# released(<file> <at least>): the release has at least that many cells, so
# that equal files say something.
function(released file least)
  file(STRINGS ${WORK}/${file} lines)
  list(LENGTH lines n)
  math(EXPR cells "${n} - 1")
  list(GET lines 0 header)
  if(NOT header STREQUAL "page_id\tproject\tcountry\tcount" OR cells LESS least)
    message(FATAL_ERROR "${file}: header '${header}', ${cells} cells; expected the release "
                        "header and at least ${least} cells")
  endif()
endfunction()

set(params --t 40 --tau 20)
if(CASE STREQUAL "generated")
  file(WRITE ${WORK}/a.hex "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
  file(WRITE ${WORK}/b.hex "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100")
  # Secrets only their owner can read: anything else is refused (issue 33).
  file(CHMOD ${WORK}/a.hex ${WORK}/b.hex PERMISSIONS OWNER_READ OWNER_WRITE)
  set(day --rows 20011 ${params})
  run(single 20011 out ${day} --secret-file a.hex --out single.tsv)
  released(single.tsv 20)
  foreach(np 1 2 3)
    run(${np} 20011 out ${day} --secret-file a.hex --out np${np}.tsv)
    same(single.tsv np${np}.tsv)
  endforeach()
  run(single 20011 out ${day} --secret-file b.hex --out other.tsv)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/single.tsv ${WORK}/other.tsv
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "two secrets gave the same release: the noise does not follow the secret")
  endif()
elseif(CASE STREQUAL "tsv")
  set(day --tsv ${SAMPLE} --t 5 --tau 3 --rho 1)
  run(3 1500 out ${day} --write-secret w.hex --out np3.tsv)
  if(NOT out MATCHES "1500 rows on 3 ranks")
    message(FATAL_ERROR "expected the sample on 3 ranks:\n${out}")
  endif()
  execute_process(COMMAND stat -c %a ${WORK}/w.hex OUTPUT_VARIABLE mode
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT mode STREQUAL "600")
    message(FATAL_ERROR "w.hex has mode ${mode}; a secret must be readable by its owner only")
  endif()
  released(np3.tsv 10)
  run(single 1500 out ${day} --secret-file w.hex --out single.tsv)
  same(single.tsv np3.tsv)
  run(2 1500 out ${day} --secret-file w.hex --out np2.tsv)
  same(single.tsv np2.tsv)
  # Rounds of 4 KiB: each rank's share read in many rounds, each round's rows
  # sent to their actors' ranks before the next (issue 33, item 3).
  foreach(np 2 3)
    run(${np} 1500 out ${day} --secret-file w.hex --round-bytes 4096 --out rounds${np}.tsv)
    if(NOT out MATCHES "in ([0-9]+) rounds" OR CMAKE_MATCH_1 LESS 5)
      message(FATAL_ERROR "expected the share read in at least 5 rounds:\n${out}")
    endif()
    same(single.tsv rounds${np}.tsv)
  endforeach()

  # Two rows over three ranks: the middle rank's byte range holds no line
  # start. The rows view one page from two actors.
  file(WRITE ${WORK}/a.hex "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
  file(CHMOD ${WORK}/a.hex PERMISSIONS OWNER_READ OWNER_WRITE)
  file(WRITE ${WORK}/tiny.tsv
       "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n"
       "7\tPage_7\ten.wikipedia\tDE\t2026-11-22\tactor-one\r\n"
       "7\tPage_7\ten.wikipedia\tDE\t2026-11-22\tactor-two")
  set(tiny --tsv tiny.tsv --t 1 --tau 1 --rho 100)
  run(single 2 out ${tiny} --secret-file a.hex --out tiny_single.tsv)
  released(tiny_single.tsv 1)
  run(3 2 out ${tiny} --secret-file a.hex --out tiny_np3.tsv)
  if(NOT out MATCHES "\\(0 to 1 per rank\\)")
    message(FATAL_ERROR "expected a rank without rows:\n${out}")
  endif()
  same(tiny_single.tsv tiny_np3.tsv)

  # A malformed secret under mpiexec: every rank stops with exit code 2 and
  # rank 0 alone prints the refusal (mpiexec adds its own report).
  file(WRITE ${WORK}/bad.hex "00112233\n")
  file(CHMOD ${WORK}/bad.hex PERMISSIONS OWNER_READ OWNER_WRITE)
  execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} 2 --oversubscribe ${PROGRAM} ${tiny} --secret-file
                          bad.hex --out bad.tsv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 60
                  WORKING_DIRECTORY ${WORK})
  string(REPLACE ";" "," text "${stderr}")  # a list separator inside a match splits it
  string(REGEX MATCHALL "pageview_histogram_mpi: --secret-file: bad.hex [^\n]*allowed: " lines
               "${text}")
  list(LENGTH lines n)
  if(NOT rc STREQUAL "2" OR NOT n EQUAL 1 OR EXISTS ${WORK}/bad.tsv)
    message(FATAL_ERROR "malformed secret on 2 ranks: exit ${rc} (expected 2), ${n} refusals "
                        "(expected 1)\nstdout: ${stdout}\nstderr: ${stderr}")
  endif()
  message(STATUS "malformed secret on 2 ranks: refused once, exit 2")
else()
  message(FATAL_ERROR "CASE=${CASE}; allowed: generated or tsv")
endif()
