Feature: Skill file tool registry
  As a developer
  I want the file tools listed with their capabilities
  So that an agent backend can register them and know which ones change files

  # Scenarios of seed 000 for capabilities and registration, phrased as in the seed. The
  # registry is FileTools.ListTools of a live toolhost over gRPC.

  # ---- Read-Only Enforcement ----

  Scenario: ReadFile tool has read_only capability
    Given a skill file tools registry
    Then the "skill/file-read" tool should have read_only capability

  Scenario: WriteFile tool has writes capability
    Given a skill file tools registry
    Then the "skill/file-write" tool should have writes capability

  Scenario: EditFile tool has writes capability
    Given a skill file tools registry
    Then the "skill/file-edit" tool should have writes capability

  Scenario: DeleteFile tool has writes capability
    Given a skill file tools registry
    Then the "skill/file-delete" tool should have writes capability

  Scenario: The tree tools say which ones change files
    Given a skill file tools registry
    Then the "skill/file-move" tool should have writes capability
    And the "skill/file-copy" tool should have writes capability
    And the "skill/directory-make" tool should have writes capability
    And the "skill/directory-remove" tool should have writes capability
    And the "skill/files-read" tool should have read_only capability

  # ---- Registration ----

  Scenario: Register all skill file tools
    Given a skill file tools registry
    Then the skill registry should contain 18 tools
    And the skill registry should contain tool "skill/file-read"
    And the skill registry should contain tool "skill/file-write"
    And the skill registry should contain tool "skill/file-edit"
    And the skill registry should contain tool "skill/file-delete"
    And the skill registry should contain tool "skill/file-move"
    And the skill registry should contain tool "skill/file-copy"
    And the skill registry should contain tool "skill/directory-make"
    And the skill registry should contain tool "skill/directory-remove"
    And the skill registry should contain tool "skill/files-read"
    And the skill registry should contain tool "skill/file-search"
    And the skill registry should contain tool "skill/file-watch"
