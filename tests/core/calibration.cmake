shardwise_add_test(test_calibration SOURCES test_calibration.cpp LIBS Shardwise::calibrate)
