//! Rust client for toolhost: the generated messages and clients (`proto`) and small helpers:
//! [`connect`] with TLS and a bearer token, [`read_all`] / [`read_to`] for streamed reads with
//! their sha256 checked, [`upload`] from any `AsyncRead`, and [`reason`] for the ErrorInfo
//! reason of a failed call.

mod connect;
mod error;
mod read;
mod reason;
mod upload;

pub use connect::{connect, BearerInterceptor, Client, FilesClient, Options, SkillsClient, ToolsClient};
pub use error::Error;
pub use read::{read_all, read_to};
pub use reason::{has_reason, reason, reason_name, DOMAIN};
pub use upload::upload;

/// The generated code, one module per proto package.
pub mod proto {
    pub mod toolhost {
        pub mod files {
            pub mod v1 {
                tonic::include_proto!("toolhost.files.v1");
            }
        }
        pub mod skills {
            pub mod v1 {
                tonic::include_proto!("toolhost.skills.v1");
            }
        }
        pub mod tools {
            pub mod v1 {
                tonic::include_proto!("toolhost.tools.v1");
            }
        }
        pub mod errors {
            pub mod v1 {
                tonic::include_proto!("toolhost.errors.v1");
            }
        }
    }
}
