# Writes layers.dox: one Doxygen page per layer (layer_<name>.html in the
# reference, linked from docs/index.md), listing the layer's public headers
# with the first sentence of each header's opening comment. Included by
# docs/CMakeLists.txt at configure time.
set(privet_layers core mechanisms accounting sketches crypto ml algorithms io dist)
set(privet_layer_titles
    "core: pipelines, metrics, guarantees, randomness, errors"
    "mechanisms: where the noise comes from"
    "accounting: events, odometer, calibration"
    "sketches: bounding contributions, histograms, count-min, text"
    "crypto: Shamir, secure aggregation, Paillier, DGK, secure comparison"
    "ml: DP-SGD and its models"
    "algorithms: the five published systems"
    "io: readers of the systems' data"
    "dist: the systems across MPI processes")
set(privet_layer_guides core mechanisms accounting sketches crypto ml algorithms algorithms
                        algorithms)
set(text "/**\n\\page layers The API by layer\n\n")
foreach(layer IN LISTS privet_layers)
  string(APPEND text "- \\subpage layer_${layer}\n")
endforeach()
string(APPEND text "*/\n")
foreach(layer title guide IN ZIP_LISTS privet_layers privet_layer_titles privet_layer_guides)
  string(APPEND text "\n/**\n\\page layer_${layer} ${title}\n\n"
                     "The public headers of `include/privet/${layer}/` (implementation details in "
                     "`detail/` are not part of the API). Task-oriented guide: `docs/${guide}.md`.\n\n")
  file(GLOB_RECURSE headers RELATIVE ${PROJECT_SOURCE_DIR}/include
       ${PROJECT_SOURCE_DIR}/include/privet/${layer}/*.hpp)
  list(FILTER headers EXCLUDE REGEX "/detail/")
  list(SORT headers)
  foreach(header IN LISTS headers)
    # The opening `// privet/<layer>/<name>.hpp — summary...` comment, joined,
    # up to the end of its first sentence.
    file(READ ${PROJECT_SOURCE_DIR}/include/${header} head LIMIT 3000)
    # Up to the comment's first empty line (a bare `//`) or its end.
    string(REGEX MATCH "^(// [^\n]*\n)+" summary "${head}")
    string(REGEX REPLACE "\n// ?" " " summary "${summary}")
    string(REGEX REPLACE "^// " "" summary "${summary}")
    string(REPLACE ";" "," summary "${summary}")
    string(REGEX REPLACE "^ *privet/[a-z_/]+\\.hpp *(—|-+)? *" "" summary "${summary}")
    # First sentence: up to the first ". " (or the end).
    string(FIND "${summary}. " ". " end)
    string(SUBSTRING "${summary}" 0 ${end} summary)
    string(STRIP "${summary}" summary)
    string(REGEX REPLACE "\\.$" "" summary "${summary}")
    string(APPEND text "- \\ref ${header} \"${header}\" — ${summary}.\n")
  endforeach()
  string(APPEND text "*/\n")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/layers.dox CONTENT "${text}")
