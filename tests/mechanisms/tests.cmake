privet_add_layer_tests(
  mechanisms mechanisms/laplace_test.cpp mechanisms/gaussian_test.cpp
  mechanisms/discrete_laplace_test.cpp mechanisms/discrete_laplace_statistical_test.cpp
  mechanisms/randomized_response_test.cpp mechanisms/randomized_response_statistical_test.cpp
  mechanisms/exponential_test.cpp mechanisms/exponential_statistical_test.cpp
  mechanisms/sparse_vector_test.cpp mechanisms/sparse_vector_statistical_test.cpp)
