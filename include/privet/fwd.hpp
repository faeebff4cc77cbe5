// privet/fwd.hpp — forward declarations, so that interfaces can name privet's
// types without including their definitions.
#pragma once

#include <cstdint>

namespace privet {

class error;
class invalid_parameter;
class budget_exhausted;
class overflow_error;
class serialization_error;
class protocol_error;

class pure_dp;
class approx_dp;
class zcdp;
class gdp;

class csprng;
class seeded_generator;

struct symmetric_distance;
struct unit_distance;
struct absolute_distance;
struct l1_distance;
struct l2_distance;
struct linf_distance;
struct partition_distance;

struct secure_noise;
struct simulation_only_noise;

}  // namespace privet
