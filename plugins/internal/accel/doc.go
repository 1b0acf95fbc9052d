// Package accel is the core the accelerator plugins of mlperf-host
// (tensorrt, qaic) share: what is the same whether a batch runs on a CUDA
// stream or on a Cloud AI 100 exec object.
//
//   - [Scheduler] splits a query into batches and runs each on an idle
//     execution [Slot] of any device as one frees up; the last batch runs on
//     the caller's goroutine, the others on goroutines the scheduler owns.
//     When the caller's context ends, undispatched samples fail and Infer
//     stops waiting for batches other than its own ([Batch.Enter] then
//     keeps late batches away from the caller's samples and Completer).
//   - [Pool] hands out idle slots and retires those of failed devices;
//     [Health] is one device's failure state and [DeviceError] its error.
//   - [Backend] is the sdk.Backend skeleton around a loaded [Model]: Info,
//     one Load with the model's [Limits], SubmissionFacts, Close once, and
//     the errors for calls out of order. [BatchTimeout] chooses the SDK
//     batcher's deadline for the run's scenario.
//   - [Option] tables parse plugin options into a Config and declare them
//     as the option schema ([Schema]); [ParseDevices] reads device lists.
//   - [ReadPCI] reads a device's NUMA node and PCIe link from sysfs.
//   - [LibraryError] reports a runtime library that could not be loaded,
//     with the remedy; [OpenLibrary] opens one through package native.
//
// A plugin keeps what is its own: the runtime binding, how a slot stages,
// launches and waits, and its options.
//
// Package accel imports only sdk, abi and plugins/internal/native; it must
// not import host, loadgen, cmd or any plugin.
package accel
