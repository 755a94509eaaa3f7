shardwise_add_test(test_estimate SOURCES test_estimate.cpp LIBS Shardwise::estimate)
