# include() from a -P script: with -DMODEL=x.json, MODELS becomes "--hw-models WORK/models", a
# folder holding the project's hardware models and that one; else "". SRC and WORK must be set.
set(MODELS "")
if(DEFINED MODEL)
  file(GLOB own ${SRC}/hw-models/*.json)
  file(COPY ${own} ${MODEL} DESTINATION ${WORK}/models)
  set(MODELS --hw-models ${WORK}/models)
endif()
