// privet/sketches/sketches.hpp — everything in the sketches layer.
#pragma once

#include <privet/sketches/char_ngrams.hpp>
#include <privet/sketches/contribution_bounding.hpp>
#include <privet/sketches/count_min.hpp>
#include <privet/sketches/dense_histogram.hpp>
#include <privet/sketches/feature_reduction.hpp>
#include <privet/sketches/histogram_count.hpp>
#include <privet/sketches/key_bounding.hpp>
#include <privet/sketches/ngrams.hpp>
#include <privet/sketches/prefix_trie.hpp>
#include <privet/sketches/sparse_histogram.hpp>
#include <privet/sketches/tokenizer.hpp>
#include <privet/sketches/utf8.hpp>
