@phase2 @skills @agent_skills @agent_skills_loader
Feature: Agent Skills Loader — parsing SKILL.md
  As a developer of an agent backend
  I want SKILL.md files parsed into structured skills, or refused with a reason
  So that actors can discover and invoke instruction-driven multi-step workflows

  # Seed 001, parse scenarios. "I parse the SKILL.md file" sends the text to
  # SkillCatalog.ValidateSkill on a live server over gRPC: a valid SKILL.md comes back as a
  # skill, a bad one as problems in the response (never as an RPC error). Folder, tool-mapping
  # and disclosure scenarios are in agent-skills-folders.feature.

  # ---------------------------------------------------------------------------
  # AgentSkillSpec — SKILL.md Parsing
  # ---------------------------------------------------------------------------

  @agent_skill_parse
  Scenario: Parse a minimal SKILL.md with only required frontmatter fields
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/deploy-staging
      description: Deploy the current branch to the staging environment.
      ---
      Follow these steps to deploy.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/deploy-staging"
    And the parsed skill description should be "Deploy the current branch to the staging environment."
    And the parsed skill body should contain "Follow these steps to deploy."

  @agent_skill_parse
  Scenario: Parse a SKILL.md with all optional frontmatter fields
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/code-review
      description: Run a thorough code review checklist.
      version: 1.2.3
      compatibility:
        min_agent_version: "3.0.0"
      metadata:
        author: aditya
        tags: [review, quality]
      allowed-tools:
        - local/read-file
        - local/search-files
      ---
      ## Code Review Steps
      1. Check style
      2. Verify tests
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/code-review"
    And the parsed skill version should be "1.2.3"
    And the parsed skill allowed tools should include "local/read-file"
    And the parsed skill allowed tools should include "local/search-files"
    And the parsed skill metadata should have key "author" with value "aditya"

  @agent_skill_parse
  Scenario: Parse SKILL.md body text is preserved exactly
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/test-skill
      description: Test skill for body parsing.
      ---
      # Multi-line Instructions

      Step 1: Do something important.
      Step 2: Do another thing.

      ```python
      code_example()
      ```
      """
    When I parse the SKILL.md file
    Then the parsed skill body should contain "Step 1: Do something important."
    And the parsed skill body should contain "Step 2: Do another thing."
    And the parsed skill body should contain "code_example()"

  @agent_skill_parse @error_handling
  Scenario: SKILL.md missing required name field raises error
    Given a SKILL.md file with frontmatter:
      """
      ---
      description: A skill without a name.
      ---
      Some body text.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "name"

  @agent_skill_parse @error_handling
  Scenario: SKILL.md missing required description field raises error
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/no-desc
      ---
      Some body text.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "description"

  @agent_skill_parse @error_handling
  Scenario: SKILL.md with invalid namespaced name raises error
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: invalid-name-no-slash
      description: A skill with a bad name.
      ---
      Body text.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "namespace"

  @agent_skill_parse @error_handling
  Scenario: File without YAML frontmatter delimiter raises error
    Given a SKILL.md file with frontmatter:
      """
      Just plain text without frontmatter.
      No YAML delimiter here.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "frontmatter"

  @agent_skill_parse @error_handling
  Scenario: Empty SKILL.md file raises error
    Given an empty SKILL.md file
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "frontmatter"

  # ---------------------------------------------------------------------------
  # Namespaced Naming
  # ---------------------------------------------------------------------------

  @agent_skill_naming
  Scenario: Skill with local namespace is accepted
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/my-skill
      description: A valid local skill.
      ---
      Body.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/my-skill"

  @agent_skill_naming
  Scenario: Skill with custom namespace is accepted
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: devops/deploy-pipeline
      description: A skill in the devops namespace.
      ---
      Body.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "devops/deploy-pipeline"

  @agent_skill_naming
  Scenario: Skill name with underscores and hyphens is accepted
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/my_complex-skill_v2
      description: Valid name with mixed characters.
      ---
      Body.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/my_complex-skill_v2"

  @agent_skill_naming @error_handling
  Scenario: Skill name with special characters is rejected
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/bad name!
      description: Invalid name.
      ---
      Body.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "namespace"

  # ---------------------------------------------------------------------------
  # Stable Step Ordering
  # ---------------------------------------------------------------------------

  @agent_skill_ordering
  Scenario: Steps in SKILL.md body are preserved in stable order
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/ordered-skill
      description: Ordered steps skill.
      ---
      Step A: First action.
      Step B: Second action.
      Step C: Third action.
      """
    When I parse the SKILL.md file
    Then the parsed skill body steps should appear in order: "Step A", "Step B", "Step C"

  # ---------------------------------------------------------------------------
  # Edge case coverage — parsing
  # ---------------------------------------------------------------------------

  @agent_skill_parse @error_handling @coverage
  Scenario: SKILL.md with unclosed frontmatter delimiter raises error
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/unclosed-skill
      description: This frontmatter is never closed.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "frontmatter"

  @agent_skill_parse @error_handling @coverage
  Scenario: SKILL.md with empty frontmatter block raises error
    Given a SKILL.md with an empty frontmatter block
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "frontmatter"

  @agent_skill_parse @error_handling @coverage
  Scenario: SKILL.md with malformed YAML in frontmatter raises error
    Given a SKILL.md with malformed YAML frontmatter
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "YAML"

  @agent_skill_parse @error_handling @coverage
  Scenario: SKILL.md with non-mapping YAML frontmatter raises error
    Given a SKILL.md with a YAML list as frontmatter instead of a mapping
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "mapping"

  @agent_skill_parse @coverage
  Scenario: SKILL.md with non-dict compatibility is handled gracefully
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/bad-compat
      description: Skill with non-dict compatibility field.
      compatibility: "just a string"
      ---
      Body text.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/bad-compat"

  @agent_skill_parse @coverage
  Scenario: SKILL.md with non-dict metadata is handled gracefully
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/bad-meta
      description: Skill with non-dict metadata field.
      metadata: "just a string"
      ---
      Body text.
      """
    When I parse the SKILL.md file
    Then the parsed skill name should be "local/bad-meta"

  # ---------------------------------------------------------------------------
  # Structured Steps — frontmatter steps list → SkillStep objects
  # ---------------------------------------------------------------------------

  @agent_skill_steps
  Scenario: SKILL.md with steps list in frontmatter parses into SkillStep objects
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/step-skill
      description: Skill with structured steps.
      steps:
        - Run tests to verify everything passes
        - Push branch to remote repository
        - Deploy to staging environment
      ---
      Detailed instructions go here.
      """
    When I parse the SKILL.md file
    Then the parsed skill steps should have 3 entries
    And the parsed skill step 1 content should be "Run tests to verify everything passes"
    And the parsed skill step 2 content should be "Push branch to remote repository"
    And the parsed skill step 3 content should be "Deploy to staging environment"

  @agent_skill_steps
  Scenario: Structured steps maintain stable 1-based index ordering
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/ordered-steps-skill
      description: Ordered structured steps.
      steps:
        - Alpha step
        - Beta step
        - Gamma step
      ---
      Body text.
      """
    When I parse the SKILL.md file
    Then the parsed skill step 1 index should be 1
    And the parsed skill step 2 index should be 2
    And the parsed skill step 3 index should be 3

  @agent_skill_steps
  Scenario: SKILL.md without steps field has empty steps list
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/no-steps-skill
      description: Skill without steps field.
      ---
      Body text.
      """
    When I parse the SKILL.md file
    Then the parsed skill steps should have 0 entries

  @agent_skill_steps @error_handling
  Scenario: SKILL.md with steps as a non-list raises actionable error
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/bad-steps-skill
      description: Skill with invalid steps field type.
      steps: "just a string instead of a list"
      ---
      Body text.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "steps"

  @agent_skill_steps @error_handling
  Scenario: SKILL.md with an empty step entry raises actionable error
    Given a SKILL.md file with frontmatter:
      """
      ---
      name: local/empty-step-skill
      description: Skill with an empty step in the list.
      steps:
        - First valid step
        -
      ---
      Body text.
      """
    When I parse the SKILL.md file expecting an error
    Then the agent skill parse error should mention "steps"
