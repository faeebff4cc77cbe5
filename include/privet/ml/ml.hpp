// privet/ml/ml.hpp — everything in the ML layer: the model interface and
// batches, softmax and clipping, logistic regression, the MLP, the LSTM,
// MFCC features, metrics, and DP-SGD. Needs no optional dependency: with
// privet::blas the matrix products run on BLAS, without it on plain loops.
#pragma once

#include <privet/ml/clipping.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/lstm.hpp>
#include <privet/ml/metrics.hpp>
#include <privet/ml/mfcc.hpp>
#include <privet/ml/mlp.hpp>
#include <privet/ml/model.hpp>
#include <privet/ml/privacy_units.hpp>
#include <privet/ml/softmax.hpp>
