set(privet_sketches_test_files
    sketches/contribution_bounding_test.cpp
    sketches/prefix_trie_test.cpp
    sketches/utf8_test.cpp
    sketches/tokenizer_test.cpp
    sketches/ngrams_test.cpp
    sketches/char_ngrams_test.cpp
    sketches/sparse_histogram_test.cpp
    sketches/dense_histogram_test.cpp
    sketches/key_bounding_test.cpp
    sketches/count_min_test.cpp
    sketches/count_min_statistical_test.cpp
    sketches/feature_reduction_test.cpp
    sketches/feature_reduction_statistical_test.cpp
    sketches/ngrams_limits_test.cpp
    sketches/tokenizer_limits_test.cpp
    sketches/sparse_histogram_limits_test.cpp
    sketches/dense_histogram_limits_test.cpp
    sketches/contribution_bounding_limits_test.cpp
    sketches/key_bounding_limits_test.cpp)
# PCA needs xtensor-blas (the optional privet::blas target).
if(TARGET privet::blas)
  list(APPEND privet_sketches_test_files sketches/pca_test.cpp)
endif()
privet_add_layer_tests(sketches ${privet_sketches_test_files})
if(TARGET privet::blas AND TARGET privet_sketches_tests)
  target_link_libraries(privet_sketches_tests PRIVATE privet::blas)
endif()
