#include "gpuenv/builder/publish_package.hpp"

#include "gpuenv/builder/output_channel.hpp"
#include "gpuenv/builder/package_tests.hpp"

namespace gpuenv::build {

namespace fs = std::filesystem;

std::expected<std::size_t, BuildError> test_and_publish(const Publication& publication, BuildObserver& observer) {
  std::size_t tests = 0;
  if (publication.run_tests) {
    auto staged = prepare_local_channel(publication.staging_dir, {});
    if (!staged) return std::unexpected(staged.error());
    PackageTestRequest request;
    request.package_file = publication.staged_package;
    request.channel_dir = publication.staging_dir;
    request.work_dir = publication.test_dir;
    request.settings = publication.settings;
    request.build_platform = publication.build_platform;
    request.log_file = publication.log_file;
    auto report = test_package(request, observer);
    if (!report) {
      report.error().message += "\nThe package stays out of the output channel, at " +
                                publication.staged_package.string();
      return std::unexpected(report.error());
    }
    tests = report->tests;
  } else {
    observer.step("tests skipped (--test skip)");
  }
  std::error_code error;
  fs::create_directories(publication.final_package.parent_path(), error);
  fs::rename(publication.staged_package, publication.final_package, error);
  if (error) {
    // Another file system: copy, then drop the staged one.
    error.clear();
    fs::copy_file(publication.staged_package, publication.final_package, fs::copy_options::overwrite_existing, error);
  }
  if (error) {
    return std::unexpected(BuildError{BuildErrorKind::packaging, "cannot move the package into the output channel (" +
                                                                     publication.final_package.string() +
                                                                     "): " + error.message()});
  }
  return tests;
}

}  // namespace gpuenv::build
