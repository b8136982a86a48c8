# The freestanding Ed25519 verifier and SHA-512 of the runtime (deepgemm/ed25519.h): the RFC 8032
# and FIPS 180-4 vectors, non-canonical encodings, and agreement with libsodium.
dg_unit_test(ed25519 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/ed25519_test.cpp LIBS dg_baremetal sodium)
