shardwise_add_test(test_estimate SOURCES test_estimate.cpp LIBS Shardwise::estimate)
# Calibration builds on the estimate.
include(${CMAKE_CURRENT_LIST_DIR}/calibration.cmake)
