shardwise_add_test(test_plan SOURCES test_plan.cpp LIBS Shardwise::plan)
