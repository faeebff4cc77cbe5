# privetDocsCodeBlocks.cmake — every ```cpp block of docs/*.md is compiled and
# run by the test suite, so the guides cannot show code that does not build
# or that throws.
#
# At configure time each page docs/<page>.md becomes one generated source,
# <build>/docs_code_blocks/<page>.cpp: its blocks' #include lines are hoisted
# to the top, and each block's remaining text goes into its own namespace
# (privet_docs::<page>_<n>), with #line directives so that a compiler error
# points at the page and line of the Markdown. A block is a complete program:
# it must define `int main()` as its last top-level item (inside a namespace
# `main` is an ordinary function, which the generated driver calls; the
# extractor appends `return 0;` to its closing brace, so the page can end
# main as a program does). A block that explicitly specialises a privet
# template (`template <>` at the start of a line) cannot sit in a namespace;
# it gets a source of its own, with its `main` renamed. All sources build one
# executable, privet_docs_code_blocks, which runs every block of the page
# named on its command line (one ctest per page, privet.docs.<page>), and a
# block fails the test by throwing or by returning non-zero. Code that is not
# meant to compile belongs in ```text blocks.
#
# Few blocks per page and specific headers (never <privet/privet.hpp>) keep
# the build to one translation unit per page.

function(privet_add_docs_code_block_tests docs_dir)
  file(GLOB pages CONFIGURE_DEPENDS ${docs_dir}/*.md)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/docs_code_blocks)
  set(sources)
  set(runners)
  set(page_names)
  foreach(page IN LISTS pages)
    # Re-run the extraction when a page changes.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${page})
    get_filename_component(stem ${page} NAME_WE)
    string(MAKE_C_IDENTIFIER ${stem} id)
    file(READ ${page} text)
    set(includes "")
    set(body "")
    set(calls "")
    set(declarations "")
    set(n 0)
    set(rest "${text}")
    set(consumed_lines 0)
    while(TRUE)
      string(FIND "${rest}" "```cpp\n" open)
      if(open EQUAL -1)
        break()
      endif()
      # The fence must start a line.
      if(open GREATER 0)
        math(EXPR before "${open} - 1")
        string(SUBSTRING "${rest}" ${before} 1 prev)
        if(NOT prev STREQUAL "\n")
          message(FATAL_ERROR "${page}: a ```cpp fence must start its line")
        endif()
      endif()
      string(SUBSTRING "${rest}" 0 ${open} head)
      string(REGEX MATCHALL "\n" head_newlines "${head}")
      list(LENGTH head_newlines head_lines)
      math(EXPR first_line "${consumed_lines} + ${head_lines} + 2")
      math(EXPR code_start "${open} + 7")
      string(SUBSTRING "${rest}" ${code_start} -1 after)
      string(FIND "${after}" "\n```" close)
      if(close EQUAL -1)
        message(FATAL_ERROR "${page}:${first_line}: unterminated ```cpp block")
      endif()
      math(EXPR code_length "${close} + 1")
      string(SUBSTRING "${after}" 0 ${code_length} code)
      math(EXPR tail_start "${close} + 4")
      string(SUBSTRING "${after}" ${tail_start} -1 rest)
      string(REGEX MATCHALL "\n" code_newlines "${code}")
      list(LENGTH code_newlines code_lines)
      math(EXPR consumed_lines "${first_line} + ${code_lines} - 1")
      math(EXPR n "${n} + 1")
      set(where "docs/${stem}.md:${first_line}")

      if(NOT code MATCHES "(^|\n)int main\\(\\) {")
        message(FATAL_ERROR "${where}: a ```cpp block must be a program ending with `int main() { ... }` "
                            "(use ```text for code that is not meant to compile)")
      endif()
      # main must be the block's last top-level item: the block ends with the
      # brace that closes it. Put `return 0;` before that brace (after the
      # block's own return, if any, it is unreachable and harmless).
      if(NOT code MATCHES "\n}\n$")
        message(FATAL_ERROR "${where}: a ```cpp block must end with the `}` that closes main()")
      endif()
      string(REGEX REPLACE "\n}\n$" "\nreturn 0; }\n" code "${code}")

      set(block_id ${id}_${n})
      if(code MATCHES "(^|\n)template <>")
        # A specialisation of a privet template: a source of its own, at
        # global scope, its main renamed.
        string(REGEX REPLACE "(^|\n)int main\\(\\) {" "\\1int privet_docs_${block_id}() {" code
                             "${code}")
        set(source "// Generated from docs/${stem}.md by cmake/privetDocsCodeBlocks.cmake.\n")
        string(APPEND source "#line ${first_line} \"${page}\"\n${code}")
        set(file ${out_dir}/${block_id}.cpp)
        string(APPEND declarations "int privet_docs_${block_id}();\n")
        string(APPEND calls "    {\"${where}\", &privet_docs_${block_id}},\n")
      else()
        # Hoist the includes; blank lines keep the line numbers.
        string(REGEX MATCHALL "(^|\n)#include [^\n]*" block_includes "${code}")
        foreach(inc IN LISTS block_includes)
          string(STRIP "${inc}" inc)
          string(APPEND includes "${inc}\n")
        endforeach()
        string(REGEX REPLACE "(^|\n)#include [^\n]*" "\\1" code "${code}")
        string(APPEND body "namespace privet_docs::${block_id} {\n#line ${first_line} \"${page}\"\n"
                           "${code}}  // namespace privet_docs::${block_id}\n")
        string(APPEND declarations "namespace privet_docs::${block_id} { int main(); }\n")
        string(APPEND calls "    {\"${where}\", &privet_docs::${block_id}::main},\n")
        set(file "")
      endif()
      if(file)
        privet_docs_write_if_changed(${file} "${source}")
        list(APPEND sources ${file})
      endif()
    endwhile()
    if(n EQUAL 0)
      continue()
    endif()
    if(NOT body STREQUAL "")
      set(source "// Generated from docs/${stem}.md by cmake/privetDocsCodeBlocks.cmake.\n")
      string(APPEND source "${includes}\n${body}")
      privet_docs_write_if_changed(${out_dir}/${id}.cpp "${source}")
      list(APPEND sources ${out_dir}/${id}.cpp)
    endif()
    string(APPEND runners "${declarations}")
    string(APPEND runners "static const privet_docs_block ${id}_blocks[] = {\n${calls}};\n")
    list(APPEND page_names ${stem})
    set(table_${stem} ${id})
  endforeach()
  if(page_names STREQUAL "")
    return()
  endif()

  set(table "")
  foreach(stem IN LISTS page_names)
    string(APPEND table "    {\"${stem}\", ${table_${stem}}_blocks, std::size(${table_${stem}}_blocks)},\n")
  endforeach()
  set(driver "// Generated by cmake/privetDocsCodeBlocks.cmake: runs the code blocks of one docs/ page.
#include <cstddef>
#include <exception>
#include <iostream>
#include <iterator>
#include <string_view>

struct privet_docs_block {
  const char* where;
  int (*run)();
};
${runners}
struct privet_docs_page {
  std::string_view name;
  const privet_docs_block* blocks;
  std::size_t count;
};
static const privet_docs_page privet_docs_pages[] = {
${table}};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << \"usage: privet_docs_code_blocks <page>\\n\";
    return 2;
  }
  for (const auto& page : privet_docs_pages) {
    if (page.name != argv[1]) continue;
    int failures = 0;
    for (std::size_t i = 0; i < page.count; ++i) {
      const auto& block = page.blocks[i];
      std::cout << \"---- \" << block.where << '\\n' << std::flush;
      try {
        if (const int rc = block.run(); rc != 0) {
          std::cout << block.where << \": returned \" << rc << '\\n';
          ++failures;
        }
      } catch (const std::exception& e) {
        std::cout << block.where << \": threw \" << e.what() << '\\n';
        ++failures;
      }
    }
    std::cout << page.count - static_cast<std::size_t>(failures) << \" of \" << page.count
              << \" blocks passed\\n\";
    return failures == 0 ? 0 : 1;
  }
  std::cerr << \"no docs page named \" << argv[1] << '\\n';
  return 2;
}
")
  privet_docs_write_if_changed(${out_dir}/driver.cpp "${driver}")
  add_executable(privet_docs_code_blocks ${out_dir}/driver.cpp ${sources})
  target_link_libraries(privet_docs_code_blocks PRIVATE privet::privet privet_warnings)
  foreach(stem IN LISTS page_names)
    add_test(NAME privet.docs.${stem} COMMAND privet_docs_code_blocks ${stem})
    set_tests_properties(privet.docs.${stem} PROPERTIES LABELS docs)
  endforeach()
endfunction()

# Rewrites `file` only when its content changes, so that reconfiguring does
# not rebuild the blocks.
function(privet_docs_write_if_changed file content)
  if(EXISTS ${file})
    file(READ ${file} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${file} "${content}")
endfunction()
