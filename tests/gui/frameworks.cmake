# The Plan page's framework target, Export menu and Open config (core/frameworks).
if(TARGET shardwise_frameworks)
    shardwise_add_test(test_gui_plan_frameworks
        SOURCES test_plan_frameworks.cpp gui_test_main.hpp
        LIBS shardwise_gui Qt6::Svg
        LABELS gui)
endif()
