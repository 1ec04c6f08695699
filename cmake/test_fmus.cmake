# test_fmus.cmake - the FMUs test_fmu drives, built from the suite's own C
# sources (test/fmu/): the co-simulation Karnopp element and one
# deliberately broken FMU per failure class, and a model-exchange FMU of a
# smooth law and a two-body system's co-simulation FMU, each packed into a .fmu zip
# by test/fmu/mkfmu.c (libzip).  They land in ${PROJECT_BINARY_DIR}/fmus.
set(STSL_TEST_FMU_DIR ${PROJECT_BINARY_DIR}/fmus)
add_executable(mkfmu ${PROJECT_SOURCE_DIR}/test/fmu/mkfmu.c)
target_link_libraries(mkfmu PRIVATE PkgConfig::LIBZIP)
set(STSL_TEST_FMUS "")

# stsl_test_fmu(NAME SOURCE XML PLATFORM [DEFINITIONS...]): NAME.fmu from
# test/fmu/SOURCE.c compiled with DEFINITIONS, XML as its
# modelDescription.xml and the binary under binaries/PLATFORM/SOURCE.so
# (SOURCE is the modelIdentifier).
function(stsl_test_fmu name source xml platform)
  add_library(fmu_${name} MODULE ${PROJECT_SOURCE_DIR}/test/fmu/${source}.c)
  target_include_directories(fmu_${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(fmu_${name} PRIVATE ${ARGN})
  target_link_libraries(fmu_${name} PRIVATE m)
  set_target_properties(fmu_${name} PROPERTIES PREFIX "" OUTPUT_NAME karnopp_cs_${name}
    C_VISIBILITY_PRESET hidden LIBRARY_OUTPUT_DIRECTORY ${STSL_TEST_FMU_DIR}/lib)
  set(out ${STSL_TEST_FMU_DIR}/${name}.fmu)
  add_custom_command(OUTPUT ${out}
    COMMAND mkfmu ${out} ${PROJECT_SOURCE_DIR}/test/fmu/${xml} $<TARGET_FILE:fmu_${name}>
      ${platform} ${source}
    DEPENDS mkfmu fmu_${name} ${PROJECT_SOURCE_DIR}/test/fmu/${xml}
    COMMENT "Packing the test FMU ${name}.fmu")
  set(STSL_TEST_FMUS ${STSL_TEST_FMUS} ${out} PARENT_SCOPE)
endfunction()

stsl_test_fmu(karnopp karnopp_cs karnopp_cs.xml linux64)
stsl_test_fmu(step_error karnopp_cs karnopp_cs.xml linux64 BROKEN_STEP_ERROR)
stsl_test_fmu(crash karnopp_cs karnopp_cs.xml linux64 BROKEN_CRASH)
stsl_test_fmu(hang karnopp_cs karnopp_cs.xml linux64 BROKEN_HANG)
stsl_test_fmu(no_dostep karnopp_cs karnopp_cs.xml linux64 BROKEN_NO_DOSTEP)
stsl_test_fmu(guid karnopp_cs karnopp_cs.xml linux64 "FMU_GUID=\"{another-guid}\"")
stsl_test_fmu(platform karnopp_cs karnopp_cs.xml win64)
stsl_test_fmu(bad_xml karnopp_cs bad_xml.xml linux64)
stsl_test_fmu(smooth_me smooth_me smooth_me.xml linux64)
# An FMU integrating its inputs, interpolating them or not, with or without
# fmi2SetRealInputDerivatives (test_fmu_inputs).
stsl_test_fmu(integrator integrator_cs integrator_cs.xml linux64)
stsl_test_fmu(integrator_noderiv integrator_cs integrator_cs.xml linux64 NO_INPUT_DERIVATIVES)
stsl_test_fmu(integrator_held integrator_cs integrator_held.xml linux64)
stsl_test_fmu(integrator_held_noderiv integrator_cs integrator_held.xml linux64 NO_INPUT_DERIVATIVES)
stsl_test_fmu(two_body two_body_cs two_body_cs.xml linux64)
stsl_test_fmu(two_body_nofric two_body_cs two_body_nofric.xml linux64)
add_custom_target(test_fmus ALL DEPENDS ${STSL_TEST_FMUS})
foreach(t test_fmu test_fmu_compare test_fmu_inputs)
  if(TARGET ${t})
    add_dependencies(${t} test_fmus)
    target_compile_definitions(${t} PRIVATE STSL_TEST_FMU_DIR="${STSL_TEST_FMU_DIR}")
  endif()
endforeach()
# test_fmu_inputs drives the FMUs through the library's own calls.
if(TARGET test_fmu_inputs)
  target_link_libraries(test_fmu_inputs PRIVATE stsl_fmu)
endif()
# test_fmu_lazy: a shared object that is not the FMU module.
if(TARGET test_fmu_lazy)
  target_compile_definitions(test_fmu_lazy PRIVATE STSL_FMU_ELEMENT_SO="$<TARGET_FILE:stickslip_element>"
    STSL_SHARED_LIB="$<TARGET_FILE:stickslip_shared>")
endif()
