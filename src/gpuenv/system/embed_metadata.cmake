# Compiles metadata/*.tsv into the program (metadata_embedded.cpp), so gpuenv
# needs no data files beside it at run time and the tables can never be out
# of step with the code that reads them. Run by the build:
#   cmake -DMETADATA_DIR=<dir> -DOUTPUT=<file.cpp> -P embed_metadata.cmake
file(GLOB inputs "${METADATA_DIR}/*.tsv")
list(SORT inputs)
set(content "// Generated from metadata/*.tsv by src/gpuenv/system/embed_metadata.cmake; do not edit.\n")
string(APPEND content "#include \"gpuenv/system/metadata.hpp\"\n\n")
string(APPEND content "namespace gpuenv::system {\nnamespace {\n\n")
string(APPEND content "struct EmbeddedFile {\n  std::string_view name;\n  std::string_view text;\n};\n\n")
string(APPEND content "constexpr EmbeddedFile embedded_files[] = {\n")
foreach(input IN LISTS inputs)
  file(READ "${input}" text)
  get_filename_component(name "${input}" NAME)
  string(FIND "${text}" ")gpuenv_metadata\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${input} contains the raw-string delimiter used to embed it")
  endif()
  string(APPEND content "    {\"${name}\", R\"gpuenv_metadata(${text})gpuenv_metadata\"},\n")
endforeach()
string(APPEND content "};\n\n}  // namespace\n\n")
string(APPEND content "std::string_view metadata_file(std::string_view name) {\n")
string(APPEND content "  for (const auto& file : embedded_files) {\n")
string(APPEND content "    if (file.name == name) return file.text;\n  }\n  return {};\n}\n\n")
string(APPEND content "}  // namespace gpuenv::system\n")
# Rewrite only on change, so an unchanged table does not rebuild anything.
file(WRITE "${OUTPUT}.new" "${content}")
file(COPY_FILE "${OUTPUT}.new" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.new")
