@phase2 @skills @agent_skills @agent_skills_loader
Feature: Agent Skills Loader — folders, tool mapping and progressive disclosure
  As a developer of an agent backend
  I want Agent Skills folders served as read-only tools with progressive disclosure
  So that actors can discover and invoke instruction-driven multi-step workflows

  # Seed 001, folder scenarios. Each scenario builds a skills folder in its own temporary
  # directory; "I load the agent skills folder" restarts the live server with that folder as a
  # skill root and asks SkillCatalog over gRPC: ListSkills (discover, tier 1), ActivateSkill
  # (tier 2), ListSkillResources (tier 3), DeactivateSkill, GetSkillDescriptor (tool mapping)
  # and, when a load is expected to fail, ListSkillErrors.

  # ---------------------------------------------------------------------------
  # AgentSkillFolder — Folder Discovery
  # ---------------------------------------------------------------------------

  @agent_skill_folder
  Scenario: Discover a valid Agent Skills folder with SKILL.md
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/folder-skill
      description: A skill loaded from a folder.
      ---
      Instructions here.
      """
    When I load the agent skills folder
    Then the loaded agent skill name should be "local/folder-skill"
    And the loaded agent skill description should be "A skill loaded from a folder."

  @agent_skill_folder
  Scenario: Agent Skills folder discovers scripts/ subfolder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/scripted-skill
      description: A skill with bundled scripts.
      ---
      Use the scripts provided.
      """
    And the folder contains a script file "deploy.py" with content "print('deploying')"
    When I load the agent skills folder
    Then the loaded agent skill script paths should include "deploy.py"

  @agent_skill_folder
  Scenario: Agent Skills folder discovers references/ subfolder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/ref-skill
      description: A skill with reference documents.
      ---
      See references/ for more.
      """
    And the folder contains a reference file "guide.md" with content "# Guide"
    When I load the agent skills folder
    Then the loaded agent skill reference paths should include "guide.md"

  @agent_skill_folder
  Scenario: Agent Skills folder discovers assets/ subfolder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/asset-skill
      description: A skill with assets.
      ---
      See assets/ for resources.
      """
    And the folder contains an asset file "template.json" with content "{}"
    When I load the agent skills folder
    Then the loaded agent skill asset paths should include "template.json"

  @agent_skill_folder
  Scenario: Agent Skills folder with no optional subfolders loads successfully
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/bare-skill
      description: A minimal folder skill with no subfolders.
      ---
      Minimal instructions.
      """
    When I load the agent skills folder
    Then the loaded agent skill script paths should be empty
    And the loaded agent skill reference paths should be empty
    And the loaded agent skill asset paths should be empty

  @agent_skill_folder @error_handling
  Scenario: Loading a folder without SKILL.md raises error
    Given an agent skills folder without a SKILL.md file
    When I load the agent skills folder expecting an error
    Then the agent skill load error should mention "SKILL.md"

  @agent_skill_folder @error_handling
  Scenario: Loading a non-existent folder raises error
    Given a non-existent agent skills folder path
    When I load the agent skills folder expecting an error
    Then the agent skill load error should mention "not found"

  # ---------------------------------------------------------------------------
  # Tool Mapping — Agent Skill → ToolDescriptor (GetSkillDescriptor)
  # ---------------------------------------------------------------------------

  @agent_skill_tool_mapping
  Scenario: Agent skill maps to a tool with source agent_skill
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/mapped-skill
      description: Maps to a tool descriptor.
      ---
      Do the task.
      """
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor source should be "agent_skill"
    And the tool descriptor name should be "local/mapped-skill"

  @agent_skill_tool_mapping
  Scenario: Agent skill tool descriptor is read-only by default
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/readonly-skill
      description: Should default to read-only.
      ---
      Read things.
      """
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor should have read_only set to True
    And the tool descriptor should have writes set to False

  @agent_skill_tool_mapping
  Scenario: Agent skill tool descriptor includes allowed-tools in metadata
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/allowed-tools-skill
      description: Skill with allowed tools declared.
      allowed-tools:
        - local/read-file
        - local/git-status
      ---
      Use allowed tools only.
      """
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor allowed tools should include "local/read-file"
    And the tool descriptor allowed tools should include "local/git-status"

  @agent_skill_tool_mapping
  Scenario: Agent skill tool descriptor agent_skill_path points to folder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/path-skill
      description: Path should be captured in descriptor.
      ---
      Instructions.
      """
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor agent_skill_path should be set

  # ---------------------------------------------------------------------------
  # Progressive Disclosure — Three-Tier Model
  # ---------------------------------------------------------------------------

  @progressive_disclosure
  Scenario: Discovery tier loads only metadata (name + description)
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/disclosure-skill
      description: Progressive disclosure test skill.
      ---
      Full instructions that should only load on activate.
      Step 1: do this.
      Step 2: do that.
      """
    When I call discover on the agent skill
    Then the discover result should have name "local/disclosure-skill"
    And the discover result should have description "Progressive disclosure test skill."
    And the discover result body should be empty

  @progressive_disclosure
  Scenario: Activation tier loads the full SKILL.md body
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/activate-skill
      description: Activation loads the body.
      ---
      Step 1: do this.
      Step 2: do that.
      """
    When I call discover on the agent skill
    And I call activate on the agent skill
    Then the activate result body should contain "Step 1: do this."
    And the activate result body should contain "Step 2: do that."

  @progressive_disclosure
  Scenario: Resource tier lists available scripts on demand
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/resource-skill
      description: Resource tier test skill.
      ---
      Use the scripts.
      """
    And the folder contains a script file "helper.py" with content "# helper"
    When I call discover on the agent skill
    And I list available resources
    Then the resources list should include "helper.py"

  @progressive_disclosure
  Scenario: Deactivation clears the loaded body
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/deactivate-skill
      description: Deactivation clears body.
      ---
      Step 1: do this.
      """
    When I call discover on the agent skill
    And I call activate on the agent skill
    And I call deactivate on the agent skill
    Then the agent skill body should be cleared

  # ---------------------------------------------------------------------------
  # Folder path normalization and safety
  # ---------------------------------------------------------------------------

  @agent_skill_safety
  Scenario: Script paths are normalized to relative paths within the folder
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/safe-skill
      description: Path normalization test.
      ---
      Use scripts.
      """
    And the folder contains a script file "run.py" with content "# run"
    When I load the agent skills folder
    Then all script paths should be relative to the skill folder

  # ---------------------------------------------------------------------------
  # Edge case coverage — folders
  # ---------------------------------------------------------------------------

  # Seed: "AgentSkillSpec.from_file on a non-existent path raises FileNotFoundError". A server
  # never parses a path a client names, so the nearest thing a user meets is a skill folder
  # whose SKILL.md points nowhere (a dangling symlink), reported by ListSkillErrors.
  @agent_skill_parse @error_handling @coverage
  Scenario: A SKILL.md that does not exist is reported, naming SKILL.md
    Given an agent skills folder whose SKILL.md is a link to a missing file
    When I load the agent skills folder expecting an error
    Then the agent skill parse error should mention "SKILL.md"

  @agent_skill_folder @coverage
  Scenario: AgentSkillLoader folder property returns resolved path
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/prop-skill
      description: Property access test skill.
      ---
      Body text.
      """
    When I load the agent skills folder
    Then the loaded agent skill folder property should be set

  @agent_skill_folder @error_handling @coverage
  Scenario: Loading a path that is a file not a directory raises error
    Given an agent skills folder path that is a file
    When I load the agent skills folder expecting an error
    Then the agent skill load error should mention "not a directory"

  @agent_skill_folder @coverage
  Scenario: Sub-directories inside scripts/ are skipped during discovery
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/nested-skill
      description: Skill with nested directories in scripts/.
      ---
      Use scripts.
      """
    And the folder contains a script file "run.py" with content "# run"
    And the scripts folder contains a nested sub-directory
    When I load the agent skills folder
    Then the loaded agent skill script paths should include "run.py"
    And the loaded agent skill script paths should not include any directories

  # Seed: "AgentSkillLoader constructor rejects None spec". A gRPC client cannot pass None; the
  # nearest is asking to activate a skill without naming one, refused with INVALID_ARGUMENT.
  @agent_skill_loader @error_handling @coverage
  Scenario: Activating a skill without naming it is refused
    When I activate an agent skill without naming it expecting an error
    Then the call fails with INVALID_ARGUMENT and reason "INVALID_ARGUMENT"
    And the agent skill load error should mention "name must not be empty"

  # Seed: "AgentSkillLoader constructor rejects None folder". The nearest a user meets is a
  # skill root whose folder is missing, reported by ListSkillErrors naming the folder.
  @agent_skill_loader @error_handling @coverage
  Scenario: A skill root without a folder is reported
    Given a non-existent agent skills folder path
    When I load the agent skills folder expecting an error
    Then the agent skill load error should mention "folder"

  # Seed: "AgentSkillLoader.from_folder rejects None path". The nearest a client can do is ask a
  # skill for a resource folder it does not have, refused with NOT_FOUND naming the folder.
  @agent_skill_folder @error_handling @coverage
  Scenario: Reading from a resource folder a skill does not have is refused
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/no-assets-skill
      description: Skill without an assets folder.
      ---
      Body text.
      """
    When I read an agent skill resource from a slot folder the skill does not have expecting an error
    Then the call fails with NOT_FOUND and reason "NOT_FOUND"
    And the agent skill load error should mention 'skill "local/no-assets-skill" has no assets/ folder'

  # ---------------------------------------------------------------------------
  # Resource Binding Slots — read-only slots for discovered directories
  # ---------------------------------------------------------------------------

  @agent_skill_resource_slots
  Scenario: Tool descriptor includes resource binding slots for discovered directories
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/slotted-skill
      description: Skill with resource directories.
      ---
      Use scripts and references.
      """
    And the folder contains a script file "run.py" with content "# run"
    And the folder contains a reference file "guide.md" with content "# Guide"
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor should have 2 resource slot(s)
    And the tool descriptor resource slot "scripts" should have access "read_only"
    And the tool descriptor resource slot "references" should have access "read_only"

  @agent_skill_resource_slots
  Scenario: Tool descriptor with no resource directories has empty resource slots
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/no-slots-skill
      description: Skill with no resource directories.
      ---
      Instructions.
      """
    When I load the agent skills folder
    And I convert the loaded agent skill to a tool descriptor
    Then the tool descriptor should have 0 resource slot(s)
    And the loaded skill resource_slots property should be empty

  @agent_skill_resource_slots
  Scenario: Discover descriptor includes resource binding slots
    Given an agent skills folder with a valid SKILL.md:
      """
      ---
      name: local/discover-slots-skill
      description: Skill exposing slots at discover time.
      ---
      Instructions.
      """
    And the folder contains an asset file "config.json" with content "{}"
    When I call discover on the agent skill
    Then the discover result should have 1 resource slot(s)
    And the discover result resource slot "assets" should have access "read_only"
