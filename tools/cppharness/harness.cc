// cppharness: what a CPU vendor's own MLPerf harness looks like, as the
// baseline `make bench-cpu-harness` measures `mlperf-host run --plugin
// onnx-ort` against: the official C++ LoadGen driving ONNX Runtime through
// its C API.
//
//   cppharness --lib LIB --model M.onnx --data DIR --user-conf FILE
//              [--model-name resnet50] [--scenario Offline] [--instances 1]
//              [--threads 1] [--batch 32] [--out DIR]
//
// The QSL is a directory of .npy files in the MLPerf reference's
// preprocessed form (the one `mlperf-host run --dataset DIR` reads): the
// names of DIR/val_map.txt in order, else the directory's .npy files in
// name order. Every sample is read into memory before the test.
//
// The SUT keeps INSTANCES ONNX Runtime sessions of THREADS intra-op threads
// each (one inter-op thread, sequential execution, every graph
// optimization: the ORT engine's defaults), one worker thread per session.
// IssueQuery cuts a query into batches of at most BATCH samples and queues
// them; a worker copies a batch's samples into its input buffer, runs the
// model, takes each sample's class (the first highest score of the first
// output, as `--set onnx-ort.response=class` does) and completes the batch
// with one QuerySamplesComplete, the class a float32.
//
// Settings are the official mlperf.conf's for MODEL-NAME and SCENARIO with
// the user.conf over them (TestSettings::FromConfig), as in mlperf-host.
// On exit it prints the process's CPU time in seconds, "cpu_s USER SYS".
#include <sys/resource.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "loadgen.h"
#include "query_sample_library.h"
#include "system_under_test.h"
#include "test_settings.h"

#include "ortapi.h"

namespace {

[[noreturn]] void die(const std::string &msg) {
  std::cerr << "cppharness: " << msg << "\n";
  std::exit(1);
}

// Sample is one .npy file's array: its dtype and its bytes.
struct Sample {
  std::string descr;
  std::vector<char> data;
};

// read_npy reads a version 1, 2 or 3 .npy file in C order.
Sample read_npy(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die("open " + path);
  std::vector<char> all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (all.size() < 10 || std::memcmp(all.data(), "\x93NUMPY", 6) != 0) die(path + ": not a .npy file");
  size_t header_len, start;
  if (all[6] == 1) {
    header_len = (uint8_t)all[8] | (size_t)(uint8_t)all[9] << 8;
    start = 10;
  } else {
    if (all.size() < 12) die(path + ": short .npy header");
    header_len = (uint8_t)all[8] | (size_t)(uint8_t)all[9] << 8 | (size_t)(uint8_t)all[10] << 16 |
                 (size_t)(uint8_t)all[11] << 24;
    start = 12;
  }
  if (start + header_len > all.size()) die(path + ": short .npy header");
  std::string header(all.data() + start, header_len);
  if (header.find("'fortran_order': False") == std::string::npos) die(path + ": fortran order is not supported");
  size_t d = header.find("'descr': '");
  if (d == std::string::npos) die(path + ": no descr in the .npy header");
  d += 10;
  Sample s;
  s.descr = header.substr(d, header.find('\'', d) - d);
  s.data.assign(all.begin() + (long)(start + header_len), all.end());
  return s;
}

// sample_files lists the data set's samples: val_map.txt's names in order,
// else the directory's .npy files in name order; each as its file's path.
std::vector<std::string> sample_files(const std::string &dir) {
  std::vector<std::string> files;
  std::ifstream map(dir + "/val_map.txt");
  if (map) {
    std::string line;
    while (std::getline(map, line)) {
      std::istringstream in(line);
      std::string name;
      if (!(in >> name)) continue;
      // NAME.npy, or NAME with its extension replaced by .npy.
      std::string path = dir + "/" + name + ".npy";
      if (!std::ifstream(path)) {
        size_t dot = name.rfind('.');
        if (dot != std::string::npos) path = dir + "/" + name.substr(0, dot) + ".npy";
      }
      files.push_back(path);
    }
    return files;
  }
  DIR *dp = opendir(dir.c_str());
  if (!dp) die("open data set " + dir);
  while (dirent *e = readdir(dp)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) files.push_back(dir + "/" + name);
  }
  closedir(dp);
  std::sort(files.begin(), files.end());
  return files;
}

class QSL : public mlperf::QuerySampleLibrary {
 public:
  explicit QSL(const std::string &dir) {
    for (const std::string &f : sample_files(dir)) samples_.push_back(read_npy(f));
    if (samples_.empty()) die("data set " + dir + " has no samples");
    for (const Sample &s : samples_)
      if (s.descr != samples_[0].descr || s.data.size() != samples_[0].data.size())
        die("data set " + dir + ": samples differ in dtype or size");
  }
  const std::string &Name() override { return name_; }
  size_t TotalSampleCount() override { return samples_.size(); }
  size_t PerformanceSampleCount() override { return samples_.size(); }
  // Every sample is in memory from the start.
  void LoadSamplesToRam(const std::vector<mlperf::QuerySampleIndex> &) override {}
  void UnloadSamplesFromRam(const std::vector<mlperf::QuerySampleIndex> &) override {}

  const Sample &at(size_t i) const { return samples_[i]; }

 private:
  std::string name_ = "cppharness-qsl";
  std::vector<Sample> samples_;
};

struct Options {
  std::string lib, model, data, user_conf, model_name = "resnet50", scenario = "Offline", out = ".";
  int instances = 1, threads = 1, batch = 32;
};

typedef ortapi_status (*run_fn)(void *, const void *, const char *const *, const void *const *, size_t,
                                const char *const *, size_t, void **);

// Session is one ONNX Runtime session and what a worker needs to run it.
struct Session {
  void *handle = nullptr;
  std::vector<char> input;   // BATCH samples
  std::vector<int64_t> dims; // the input's shape; dims[0] is set per run
  std::vector<mlperf::QuerySampleResponse> responses;
  std::vector<float> classes;
};

class SUT : public mlperf::SystemUnderTest {
 public:
  SUT(const Options &o, const QSL &qsl) : opts_(o), qsl_(qsl) {
    ortapi_check(ORTAPI_FN(ortapi_status (*)(int, const char *, void **), ORTAPI_CREATE_ENV)(3, "cppharness", &env_),
                 "create env");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(int, int, void **), ORTAPI_CREATE_CPU_MEMORY_INFO)(1, 0, &mem_),
                 "memory info");
    size_t model_len;
    void *model = ortapi_read_file(o.model.c_str(), &model_len);
    void *session_opts = ortapi_session_options(o.threads);
    sessions_.resize((size_t)o.instances);
    for (Session &s : sessions_) {
      ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, const void *, size_t, void *, void **),
                             ORTAPI_CREATE_SESSION_FROM_ARRAY)(env_, model, model_len, session_opts, &s.handle),
                   "create session");
    }
    free(model);
    describe(sessions_[0].handle);
    for (Session &s : sessions_) {
      s.input.resize(sample_bytes_ * (size_t)o.batch);
      s.dims = input_dims_;
      s.responses.reserve((size_t)o.batch);
      s.classes.resize((size_t)o.batch);
    }
    run_ = ORTAPI_FN(run_fn, ORTAPI_RUN);
    for (Session &s : sessions_) workers_.emplace_back([this, &s] { work(s); });
  }

  ~SUT() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (std::thread &t : workers_) t.join();
  }

  const std::string &Name() override { return name_; }

  void IssueQuery(const std::vector<mlperf::QuerySample> &samples) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < samples.size(); i += (size_t)opts_.batch) {
        size_t end = std::min(samples.size(), i + (size_t)opts_.batch);
        queue_.emplace_back(samples.begin() + (long)i, samples.begin() + (long)end);
      }
    }
    cv_.notify_all();
  }

  void FlushQueries() override {}

 private:
  // describe reads the model's input: its name, element type and shape
  // (the first dimension is the batch), and the output names.
  void describe(void *session) {
    void *alloc, *type_info;
    const void *tensor_info;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void **), ORTAPI_GET_DEFAULT_ALLOCATOR)(&alloc), "allocator");
    size_t n_in, n_out;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, size_t *), ORTAPI_SESSION_GET_INPUT_COUNT)(session, &n_in),
                 "input count");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, size_t *), ORTAPI_SESSION_GET_OUTPUT_COUNT)(session, &n_out),
                 "output count");
    if (n_in != 1) die("the model has " + std::to_string(n_in) + " inputs, want 1");
    char *name;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, size_t, void *, char **), ORTAPI_SESSION_GET_INPUT_NAME)(
                     session, 0, alloc, &name),
                 "input name");
    in_name_ = name;
    for (size_t i = 0; i < n_out; i++) {
      ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, size_t, void *, char **), ORTAPI_SESSION_GET_OUTPUT_NAME)(
                       session, i, alloc, &name),
                   "output name");
      out_names_.push_back(name);
    }
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, size_t, void **), ORTAPI_SESSION_GET_INPUT_TYPE_INFO)(
                     session, 0, &type_info),
                 "input type");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, const void **), ORTAPI_CAST_TYPE_INFO_TO_TENSOR_INFO)(
                     type_info, &tensor_info),
                 "tensor info");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, int *), ORTAPI_GET_TENSOR_ELEMENT_TYPE)(tensor_info, &elem_),
                 "element type");
    size_t rank;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, size_t *), ORTAPI_GET_DIMENSIONS_COUNT)(tensor_info, &rank),
                 "rank");
    if (rank == 0) die("the model's input is a scalar");
    input_dims_.resize(rank);
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, int64_t *, size_t), ORTAPI_GET_DIMENSIONS)(
                     tensor_info, input_dims_.data(), rank),
                 "dims");
    if (input_dims_[0] >= 0 && !(input_dims_[0] == 1 && opts_.batch == 1))
      die("the model's batch dimension is fixed at " + std::to_string(input_dims_[0]) + "; use --batch 1");
    const char *descr = elem_ == ORTAPI_FLOAT ? "<f4" : elem_ == ORTAPI_UINT8 ? "|u1" : elem_ == ORTAPI_INT8 ? "|i1" : "";
    size_t esize = elem_ == ORTAPI_FLOAT ? 4 : 1;
    if (!*descr) die("the model's input element type " + std::to_string(elem_) + " is not float32, uint8 or int8");
    sample_bytes_ = esize;
    for (size_t i = 1; i < rank; i++) {
      if (input_dims_[i] < 0) die("the model's input has a free dimension besides the batch");
      sample_bytes_ *= (size_t)input_dims_[i];
    }
    const Sample &first = qsl_.at(0);
    if (first.descr != descr || first.data.size() != sample_bytes_)
      die("the data set's samples (" + first.descr + ", " + std::to_string(first.data.size()) +
          " bytes) do not fit the model's input (" + descr + ", " + std::to_string(sample_bytes_) + " bytes)");
  }

  void work(Session &s) {
    std::vector<const char *> out_names;
    for (const std::string &n : out_names_) out_names.push_back(n.c_str());
    std::vector<void *> outputs(out_names.size());
    const char *in_names[1] = {in_name_.c_str()};
    for (;;) {
      std::vector<mlperf::QuerySample> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_ || !queue_.empty(); });
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      size_t n = batch.size();
      for (size_t i = 0; i < n; i++)
        std::memcpy(s.input.data() + i * sample_bytes_, qsl_.at(batch[i].index).data.data(), sample_bytes_);
      s.dims[0] = (int64_t)n;
      void *input;
      ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, void *, size_t, const int64_t *, size_t, int, void **),
                             ORTAPI_CREATE_TENSOR_WITH_DATA)(mem_, s.input.data(), n * sample_bytes_, s.dims.data(),
                                                             s.dims.size(), elem_, &input),
                   "input tensor");
      const void *inputs[1] = {input};
      std::fill(outputs.begin(), outputs.end(), nullptr);
      ortapi_check(run_(s.handle, nullptr, in_names, inputs, 1, out_names.data(), outputs.size(), outputs.data()), "run");
      classify(outputs[0], n, s.classes.data());
      s.responses.clear();
      for (size_t i = 0; i < n; i++)
        s.responses.emplace_back(batch[i].id, (uintptr_t)&s.classes[i], sizeof(float), 0);
      mlperf::QuerySamplesComplete(s.responses.data(), n);
      ORTAPI_FN(void (*)(void *), ORTAPI_RELEASE_VALUE)(input);
      for (void *v : outputs) ORTAPI_FN(void (*)(void *), ORTAPI_RELEASE_VALUE)(v);
    }
  }

  // classify writes each of the n samples' class: the index of the first
  // highest float32 score of its slice of output.
  static void classify(void *output, size_t n, float *classes) {
    void *info;
    int elem;
    size_t count;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, void **), ORTAPI_GET_TENSOR_TYPE_AND_SHAPE)(output, &info),
                 "output shape");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, int *), ORTAPI_GET_TENSOR_ELEMENT_TYPE)(info, &elem),
                 "output type");
    ortapi_check(ORTAPI_FN(ortapi_status (*)(const void *, size_t *), ORTAPI_GET_TENSOR_SHAPE_ELEMENT_COUNT)(info, &count),
                 "output count");
    ORTAPI_FN(void (*)(void *), ORTAPI_RELEASE_TENSOR_TYPE_AND_SHAPE_INFO)(info);
    if (elem != ORTAPI_FLOAT) die("the model's first output is not float32 scores");
    float *scores;
    ortapi_check(ORTAPI_FN(ortapi_status (*)(void *, void **), ORTAPI_GET_TENSOR_MUTABLE_DATA)(output, (void **)&scores),
                 "output data");
    size_t per = count / n;
    for (size_t i = 0; i < n; i++) {
      const float *p = scores + i * per;
      classes[i] = (float)(std::max_element(p, p + per) - p);
    }
  }

  Options opts_;
  const QSL &qsl_;
  std::string name_ = "cppharness-onnxruntime";
  void *env_ = nullptr, *mem_ = nullptr;
  run_fn run_ = nullptr;
  std::string in_name_;
  std::vector<std::string> out_names_;
  std::vector<int64_t> input_dims_;
  int elem_ = 0;
  size_t sample_bytes_ = 0;
  std::vector<Session> sessions_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<mlperf::QuerySample>> queue_;
  bool done_ = false;
};

Options parse(int argc, char **argv) {
  Options o;
  std::map<std::string, std::string *> strs = {
      {"--lib", &o.lib},       {"--model", &o.model},       {"--data", &o.data}, {"--user-conf", &o.user_conf},
      {"--model-name", &o.model_name}, {"--scenario", &o.scenario}, {"--out", &o.out}};
  std::map<std::string, int *> ints = {{"--instances", &o.instances}, {"--threads", &o.threads}, {"--batch", &o.batch}};
  for (int i = 1; i < argc; i++) {
    std::string flag = argv[i];
    if (i + 1 >= argc) die("flag " + flag + " needs a value");
    std::string val = argv[++i];
    if (strs.count(flag)) {
      *strs[flag] = val;
    } else if (ints.count(flag)) {
      *ints[flag] = std::atoi(val.c_str());
      if (*ints[flag] < 1) die("flag " + flag + " " + val + ": want a positive integer");
    } else {
      die("unknown flag " + flag);
    }
  }
  if (o.lib.empty() || o.model.empty() || o.data.empty() || o.user_conf.empty())
    die("usage: cppharness --lib LIB --model M.onnx --data DIR --user-conf FILE [--model-name resnet50] "
        "[--scenario Offline] [--instances N] [--threads T] [--batch B] [--out DIR]");
  return o;
}

mlperf::TestScenario scenario(const std::string &s) {
  if (s == "Offline") return mlperf::TestScenario::Offline;
  if (s == "SingleStream") return mlperf::TestScenario::SingleStream;
  if (s == "MultiStream") return mlperf::TestScenario::MultiStream;
  if (s == "Server") return mlperf::TestScenario::Server;
  die("unknown scenario " + s);
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  ortapi_load("cppharness", o.lib.c_str());
  QSL qsl(o.data);
  mlperf::TestSettings settings;
  settings.scenario = scenario(o.scenario);
  settings.mode = mlperf::TestMode::PerformanceOnly;
  if (settings.FromConfig(o.user_conf, o.model_name, o.scenario) != 0) die("read " + o.user_conf);
  mlperf::LogSettings log;
  log.log_output.outdir = o.out;
  {
    SUT sut(o, qsl);
    mlperf::StartTest(&sut, &qsl, settings, log);
  }
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::cout << "cpu_s " << ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 << " "
            << ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6 << "\n";
  return 0;
}
