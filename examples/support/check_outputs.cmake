# examples/support/check_outputs.cmake — the pageview examples keep what the
# user owns (issue 33), registered in examples/CMakeLists.txt:
#
#   cmake -DPROGRAM=<exe> -DCASE=<case> -DSAMPLE=<pageviews_sample.tsv>
#         -DWORK=<scratch dir> -P check_outputs.cmake
#
# CASE, with PROGRAM pageview_histogram_mpi (run with --single-process):
#   refusals    --out onto the --tsv input, onto the secret, onto a symlink
#               to the input; --write-secret and --out the same file; a
#               secret of mode 0644: each exits 2 with one line on stderr
#               (the last naming `chmod 600`), before any work, and leaves
#               every file byte for byte as it was (no secret file created).
#   empty_mpi   a day whose one row has an unknown country releases nothing:
#               exit 0, the release file is written (its header line alone)
#               and reported, like a day whose row is in the US.
#   round_trip  a generated day and the same day written with --write-tsv
#               and read back give the same release for the same secret.
# CASE, with PROGRAM pageview_histogram:
#   refusals_svg   --svg whose CSV is the --tsv input; --tune-tsv the --tsv
#               file under another name (a hard link): exit 2, one line,
#               the input unchanged.
#   size_limit  a run that fails half-way through its outputs (a file-size
#               limit, ulimit -f) exits non-zero, names the file, leaves
#               the previous outputs intact and no temporary file behind.
#   empty       one row with an unknown country, then one in the US: both
#               exit 0 and write the plot and its CSV.
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

set(head "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n")

# secret(<name>): a secret file of mode 0600.
function(secret name)
  file(WRITE ${WORK}/${name} "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
  file(CHMOD ${WORK}/${name} PERMISSIONS OWNER_READ OWNER_WRITE)
endfunction()

# run(<expected exit> <out var> <err var> <args>...): runs PROGRAM in WORK.
function(run expected out err)
  execute_process(COMMAND ${PROGRAM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o
                  ERROR_VARIABLE e TIMEOUT 120 WORKING_DIRECTORY ${WORK})
  string(REPLACE ";" " " shown "${PROGRAM} ${ARGN}")
  if(NOT rc STREQUAL "${expected}")
    message(FATAL_ERROR "${shown}: exit ${rc}, expected ${expected}\nstdout: ${o}\nstderr: ${e}")
  endif()
  message(STATUS "exit ${rc}: ${shown}")
  set(${out} "${o}" PARENT_SCOPE)
  set(${err} "${e}" PARENT_SCOPE)
endfunction()

# refused(<must mention> <files that must not change> -- <args>...): exit 2,
# nothing on stdout, one line on stderr holding <must mention>, and every
# listed file byte for byte as before.
function(refused mention files)
  set(sums "")
  foreach(f IN LISTS files)
    file(SHA256 ${WORK}/${f} s)
    list(APPEND sums ${s})
  endforeach()
  run(2 o e ${ARGN})
  string(REGEX REPLACE "\n$" "" line "${e}")
  if(NOT o STREQUAL "" OR line MATCHES "\n" OR line STREQUAL "")
    message(FATAL_ERROR "${ARGN}: expected one line on stderr and nothing on stdout; got\n"
                        "stdout: ${o}\nstderr: ${e}")
  endif()
  string(FIND "${line}" "${mention}" at)
  if(at LESS 0)
    message(FATAL_ERROR "${ARGN}: the refusal does not say '${mention}': ${line}")
  endif()
  set(i 0)
  foreach(f IN LISTS files)
    file(SHA256 ${WORK}/${f} s)
    list(GET sums ${i} before)
    if(NOT s STREQUAL before)
      message(FATAL_ERROR "${ARGN}: ${f} changed although the run was refused")
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
  message(STATUS "refused: ${line}")
endfunction()

# no_temporaries(): no temporary file of output_files.hpp is left in WORK.
function(no_temporaries)
  file(GLOB left LIST_DIRECTORIES false ${WORK}/.*.tmp)
  if(left)
    message(FATAL_ERROR "temporary files left behind: ${left}")
  endif()
endfunction()

if(CASE STREQUAL "refusals")
  file(COPY_FILE ${SAMPLE} ${WORK}/day.tsv)
  secret(k.hex)
  file(CREATE_LINK day.tsv ${WORK}/link.tsv SYMBOLIC)
  set(single --single-process)
  refused("same file as --tsv" "day.tsv;k.hex" ${single} --tsv day.tsv --secret-file k.hex
          --out day.tsv)
  refused("same file as --secret-file" "day.tsv;k.hex" ${single} --tsv day.tsv --secret-file
          k.hex --out k.hex)
  refused("same file as --tsv" "day.tsv;k.hex" ${single} --tsv day.tsv --secret-file k.hex
          --out link.tsv)
  refused("same file as --write-secret" "day.tsv" ${single} --rows 1000 --write-secret s.hex
          --out s.hex)
  if(EXISTS ${WORK}/s.hex)
    message(FATAL_ERROR "a refused run created the secret file s.hex")
  endif()
  file(WRITE ${WORK}/open.hex "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
  file(CHMOD ${WORK}/open.hex PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  refused("chmod 600 open.hex" "day.tsv;open.hex" ${single} --tsv day.tsv --secret-file open.hex
          --out release.tsv)
  if(EXISTS ${WORK}/release.tsv)
    message(FATAL_ERROR "a refused run wrote release.tsv")
  endif()
  no_temporaries()
elseif(CASE STREQUAL "refusals_svg")
  file(COPY_FILE ${SAMPLE} ${WORK}/day.csv)
  file(CREATE_LINK ${WORK}/day.csv ${WORK}/public.csv)  # a hard link: the same inode
  refused("same file as --tsv" "day.csv" --tsv day.csv --svg day.svg)
  refused("same file as --tsv" "day.csv" --tsv day.csv --svg plot.svg --tune-tsv public.csv)
  if(EXISTS ${WORK}/day.svg OR EXISTS ${WORK}/plot.svg)
    message(FATAL_ERROR "a refused run wrote a plot")
  endif()
elseif(CASE STREQUAL "size_limit")
  file(WRITE ${WORK}/day.tsv "the previous day, to be kept\n")
  file(WRITE ${WORK}/plot.svg "the previous plot, to be kept\n")
  file(SHA256 ${WORK}/day.tsv day_before)
  file(SHA256 ${WORK}/plot.svg plot_before)
  # 2000 blocks (1 MB in dash's 512-byte blocks, 2 MB in bash's): room for
  # the plot, not for the 10^5-row day (about 6 MB).
  execute_process(
    COMMAND sh -c "ulimit -f 2000 && exec \"$0\" --rows 100000 --tune-rows 0 --write-tsv day.tsv --svg plot.svg"
            ${PROGRAM}
    RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e TIMEOUT 120 WORKING_DIRECTORY ${WORK})
  if(rc STREQUAL "0" OR NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "under ulimit -f: exit ${rc}, expected a failure reported as an exit "
                        "code\nstderr: ${e}")
  endif()
  if(NOT e MATCHES "cannot write day.tsv")
    message(FATAL_ERROR "under ulimit -f: stderr does not name day.tsv: ${e}")
  endif()
  file(SHA256 ${WORK}/day.tsv day_after)
  file(SHA256 ${WORK}/plot.svg plot_after)
  if(NOT day_after STREQUAL day_before OR NOT plot_after STREQUAL plot_before)
    message(FATAL_ERROR "a failed run changed the previous outputs")
  endif()
  no_temporaries()
  message(STATUS "exit ${rc} under ulimit -f; previous outputs intact, no temporary file")
  # The same run without the limit replaces both.
  run(0 o e --rows 100000 --tune-rows 0 --write-tsv day.tsv --svg plot.svg)
  file(SIZE ${WORK}/day.tsv size)
  if(size LESS 1000000)
    message(FATAL_ERROR "without the limit day.tsv has ${size} bytes")
  endif()
  no_temporaries()
elseif(CASE STREQUAL "empty")
  file(WRITE ${WORK}/unknown.tsv "${head}1\tX\ten.wikipedia\tZZ\t2026-11-22\ta\n")
  file(WRITE ${WORK}/us.tsv "${head}1\tX\ten.wikipedia\tUS\t2026-11-22\ta\n")
  foreach(day unknown us)
    run(0 o e --tsv ${day}.tsv --svg ${day}.svg --tune-rows 0)
    if(NOT EXISTS ${WORK}/${day}.svg OR NOT EXISTS ${WORK}/${day}.csv)
      message(FATAL_ERROR "${day}.tsv: the plot or its CSV was not written")
    endif()
    if(NOT o MATCHES "nothing was released")
      message(FATAL_ERROR "${day}.tsv: the empty release is not reported:\n${o}")
    endif()
  endforeach()
elseif(CASE STREQUAL "empty_mpi")
  secret(k.hex)
  file(WRITE ${WORK}/unknown.tsv "${head}1\tX\ten.wikipedia\tZZ\t2026-11-22\ta\n")
  file(WRITE ${WORK}/us.tsv "${head}1\tX\ten.wikipedia\tUS\t2026-11-22\ta\n")
  foreach(day unknown us)
    run(0 o e --single-process --tsv ${day}.tsv --secret-file k.hex --out ${day}_release.tsv)
    file(READ ${WORK}/${day}_release.tsv text)
    if(NOT text STREQUAL "page_id\tproject\tcountry\tcount\n")
      message(FATAL_ERROR "${day}.tsv: expected the empty release (header only), got: ${text}")
    endif()
    if(NOT o MATCHES "release: 0 cells")
      message(FATAL_ERROR "${day}.tsv: the empty release is not reported:\n${o}")
    endif()
  endforeach()
elseif(CASE STREQUAL "round_trip")
  secret(k.hex)
  set(params --t 40 --tau 20 --secret-file k.hex)
  run(0 o e --single-process --rows 20011 ${params} --write-tsv day.tsv --out generated.tsv)
  run(0 o e --single-process --tsv day.tsv ${params} --out read.tsv)
  if(NOT o MATCHES "20011 rows on 1 rank")
    message(FATAL_ERROR "day.tsv did not read back as 20011 rows:\n${o}")
  endif()
  file(STRINGS ${WORK}/generated.tsv lines)
  list(LENGTH lines n)
  if(n LESS 21)
    message(FATAL_ERROR "generated.tsv: ${n} lines; expected at least 20 released cells")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/generated.tsv
                          ${WORK}/read.tsv RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the generated day and its TSV gave different releases")
  endif()
  message(STATUS "generated day == its TSV read back (${n} lines)")
else()
  message(FATAL_ERROR "unknown CASE ${CASE}")
endif()
