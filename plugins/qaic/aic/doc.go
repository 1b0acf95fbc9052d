// Package aic is the Qualcomm Cloud AI 100 backend of mlperf-host: it runs a
// compiled program (a QPC) on one or more AIC100 devices through the AIC
// runtime's C API (QAicApi.h, in libQAic.so), bound at run time with
// purego so the package builds with CGO_ENABLED=0 where the SDK is absent.
//
// Each selected device gets Config.Activations activations: copies of the
// program, each loaded and activated on its own NSP cores with its own
// queue. Each activation owns Config.SetSize exec objects, every one with
// page-aligned host buffers for all of the program's I/O. Load declares
// the QPC's compiled batch size as MaxBatch and, in the Server scenario, a
// batch deadline, so that the SDK cuts queries into batches and batches
// one-sample queries across queries; each Infer call gives its batch to an
// idle exec object of any device, copies the samples into its input
// buffers, enqueues it and completes the batch's samples when the runtime
// reports it done.
//
// The C API is reached through the runtimeAPI interface; the tests drive
// the real purego binding against a fake libQAic compiled from
// testdata/fake.
//
// The names and signatures follow public sample code built against the
// Cloud AI SDK's QAicApi.h (which is not published on its own) and the
// struct definitions of quic/software-kit-for-qualcomm-cloud-ai-100
// (QAicRuntimeTypes.h, QAicTypes.h); docs/qaic.md lists the sources.
//
// Package aic imports only the sdk, the accelerator core (plugins/internal)
// and purego; it must not import host, loadgen, cmd or another plugin.
package aic
