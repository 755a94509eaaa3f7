# The Cloud page (GKE preparation of the current plan), driven offscreen.
shardwise_add_test(test_gui_cloud_page
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cloud_page.cpp ${CMAKE_CURRENT_LIST_DIR}/gui_test_main.hpp
    LIBS shardwise_gui
    LABELS gui)
