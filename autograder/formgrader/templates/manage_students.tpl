{#- nbgrader's Manage Students page, with the course's script that shows each name as the
    roster writes it and a missing email as blank (static/js/student_names.js) loaded after
    nbgrader's own -#}
{#- upstream-extends: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/manage_students.tpl sha256:0932178cf83a164e6524730cc4dbb4b3d52aeb8c5979b5563f881c4b716ef6e5 -#}
{%- extends 'nbgrader/manage_students.tpl' -%}

{%- block head -%}
{{ super() }}
<script src="{{ base_url }}/formgrader/course_static/js/student_names.js"></script>
{%- endblock head -%}
