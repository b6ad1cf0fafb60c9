//! Compiles `proto/dancehall.proto` with protox (a protobuf compiler in pure Rust, so that a
//! fresh machine needs no system `protoc`) and feeds the descriptor set to tonic-prost-build.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/dancehall.proto";
    println!("cargo:rerun-if-changed={proto}");
    let fds = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
