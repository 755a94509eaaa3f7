# cmake -P helper of runner/torch/CMakeLists.txt: writes the entry script with the build's version,
# package location and preset folder filled in, executable, and copies the package beside it.
configure_file(${SOURCE_DIR}/shardwise_torch_runner.py ${SCRIPT_OUT} @ONLY)
file(CHMOD ${SCRIPT_OUT} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(MAKE_DIRECTORY ${PACKAGE_OUT})
foreach(f IN LISTS FILES)
    configure_file(${SOURCE_DIR}/shardwise_torch/${f} ${PACKAGE_OUT}/${f} COPYONLY)
endforeach()
